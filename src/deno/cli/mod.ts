/**
 * The `toolroute` command line: serve one allowlisted tool set as an MCP server (stdio or
 * Streamable HTTP), list it, call a tool, and print the exact Deno permission flags a config
 * needs.
 *
 * ```sh
 * deno run $(toolroute flags --config toolroute.json) jsr:@toolroute/toolroute/cli serve --stdio
 * ```
 *
 * @example Print the flags a workspace needs
 * ```ts
 * import { runCli } from "@toolroute/toolroute/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const lines: string[] = [];
 * const code = await runCli(["flags", "--workspace", "/srv/ws"], {
 *   out: (line) => lines.push(line),
 *   err: (line) => lines.push(line),
 * });
 * assertEquals(code, 0);
 * assertEquals(lines, ["--allow-read=/srv/ws --allow-write=/srv/ws --no-prompt"]);
 * ```
 *
 * @module
 */

import { runCli } from "./run_cli.ts";

export { runCli } from "./run_cli.ts";
export type { CliIo } from "./cli_io.ts";
export { toolrouteJsonSchema } from "./config_schema.ts";
export { UsageError } from "./usage_error.ts";

if (import.meta.main) Deno.exit(await runCli(Deno.args));
