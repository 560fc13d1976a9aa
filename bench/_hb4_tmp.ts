import { parseArguments } from "../src/core/parse_arguments.ts";
const o = { city: "x" };
let t = performance.now();
for (let i = 0; i < 20000; i++) parseArguments(o);
console.log("object", ((performance.now() - t) / 20000 * 1000).toFixed(2));
t = performance.now();
for (let i = 0; i < 20000; i++) parseArguments('{"city":"x"}');
console.log("text", ((performance.now() - t) / 20000 * 1000).toFixed(2));
