/**
 * The README's first command: `deno task demo`. A scripted model conversation against toolroute
 * (no LLM, no network beyond 127.0.0.1), then toolroute serving its tools as an MCP server.
 *
 * Permissions: temporary workspaces (`--allow-read --allow-write`: creating the symlink a
 * prompt-injected repository could hold needs them unscoped), `bash` and `bwrap` and the Deno
 * executable for child processes (`--allow-run`), loopback servers (`--allow-net=127.0.0.1`), and
 * the few variables commands and children inherit (`--allow-env`).
 */
import { demoBash } from "./demo_bash.ts";
import { demoBuiltins } from "./demo_builtins.ts";
import { demoCore } from "./demo_core.ts";
import { demoGateway } from "./demo_gateway.ts";
import { demoMcpStdio } from "./demo_mcp_stdio.ts";
import { demoServe } from "./demo_serve.ts";

const print = (line: string) => console.log(line);

/** A part of the demo; it returns why it was skipped, or nothing when it ran. */
type Part = (print: (line: string) => void) => Promise<string | undefined | void>;

const parts: [string, Part][] = [
  ["1. Function tools, local MCP services and a mounted MCP server", demoCore],
  ["2. Built-in file tools confined to a workspace", demoBuiltins],
  ["3. bash in a bubblewrap sandbox", demoBash],
  ["4. Remote MCP servers: global, per-user, and one that is down", demoGateway],
  ["5. A stdio MCP server from an mcp.json, spawned without permissions", demoMcpStdio],
  ["6. toolroute serve: the allowlisted tool set as an MCP server", demoServe],
];

const skipped: string[] = [];
for (const [title, run] of parts) {
  print(`\n== ${title} ==\n`);
  const why = await run(print);
  if (why) skipped.push(`${title.split(".")[0]} (${why})`);
}
print(
  `\nDemo done: ${parts.length - skipped.length} of ${parts.length} parts ran` +
    (skipped.length === 0 ? "." : `; skipped: ${skipped.join(", ")}.`),
);
