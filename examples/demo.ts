/**
 * The README's first command: `deno task demo`. A scripted model conversation against toolroute,
 * with no LLM and no network beyond loopback.
 */
import { demoCore } from "./demo_core.ts";

const print = (line: string) => console.log(line);

const parts: [string, (print: (line: string) => void) => Promise<void>][] = [
  ["Function tools, local MCP services and a mounted MCP server", demoCore],
];

for (const [title, run] of parts) {
  print(`\n== ${title} ==\n`);
  await run(print);
}
