const N = 50000;
const signal = new AbortController().signal;
let t = performance.now();
let x: unknown;
for (let i = 0; i < N; i++) { let c: unknown; x = Object.assign({ tool: "a", get args() { return c ??= {}; }, signal }, undefined); }
console.log("getter obj", ((performance.now() - t) / N * 1000).toFixed(3));
t = performance.now();
for (let i = 0; i < N; i++) { x = signal.aborted; }
console.log("aborted", ((performance.now() - t) / N * 1000).toFixed(3));
t = performance.now();
for (let i = 0; i < N; i++) { const a = (() => undefined)(); x = a !== null && typeof a === "object"; }
console.log("call", ((performance.now() - t) / N * 1000).toFixed(3));
