/**
 * The supervisor that runs inside a sandbox session (see `../sandbox_session.ts`): a small Deno
 * program that serves file operations and bash commands over its stdin and stdout, one frame at
 * a time. The host sends the source text of {@linkcode supervisorMain}, the shared context and
 * the operation families (as transpiled by Deno, so each must stay self-contained: no imports,
 * no outside names but the globals it defines, `SUPERVISOR_GLOBALS`) and runs it with the host's own `deno` binary, bound read-only into the
 * sandbox.
 *
 * A frame is an 8-byte header (the JSON part's length and the body's length, big-endian
 * unsigned 32-bit), a JSON object and a body of raw bytes. Requests carry an `id` and an `op`;
 * every answer names the `id` it answers. The host treats every answer as untrusted.
 *
 * To add operations: write a family (a function of the {@linkcode SupervisorContext} returning
 * its operations by name, in a file of its own in this folder) and list it in
 * {@linkcode SUPERVISOR_FAMILIES}.
 *
 * @module
 */

import { fileOps } from "./file_ops.ts";
import { networkOps } from "./network_ops.ts";
import { processOps } from "./process_ops.ts";
import { searchOps } from "./search_ops.ts";
import { LiteralFinder } from "./literal_finder.ts";
import { starMatch } from "./star_match.ts";
import { onTheWay } from "./on_the_way.ts";
import { grepPrefilter } from "./grep_prefilter.ts";
import { searchFileRead } from "./search_file_read.ts";
import { searchLimits } from "./search_limits.ts";
import {
  type SupervisorContext,
  supervisorContext,
  type SupervisorOps,
} from "./supervisor_context.ts";
import { supervisorMain } from "./supervisor_main.ts";

/** The supervisor's operation families; their operation names must not overlap. */
export const SUPERVISOR_FAMILIES: ReadonlyArray<(context: SupervisorContext) => SupervisorOps> = [
  fileOps,
  processOps,
  networkOps,
  searchOps,
];

/**
 * The supervisor's globals of its own, by name, for the search family: each
 * self-contained (no imports, no outside names but the globals before it).
 */
const SUPERVISOR_GLOBALS: Readonly<Record<string, { toString(): string }>> = Object.freeze({
  LiteralFinder,
  starMatch,
  onTheWay,
  searchLimits,
  searchFileRead,
  grepPrefilter,
});

/**
 * The supervisor's whole program as a `data:` URL for `deno run`.
 *
 * @returns The URL.
 */
export function supervisorScript(): string {
  const families = SUPERVISOR_FAMILIES.map((family) => family.toString()).join(",\n");
  const globals = Object.entries(SUPERVISOR_GLOBALS)
    .map(([name, value]) => `const ${name} = ${value.toString()};\n`).join("");
  const source = globals +
    `await (${supervisorMain.toString()})(${supervisorContext.toString()}, [${families}]);`;
  return `data:application/javascript;base64,${btoa(source)}`;
}
