/**
 * Runs the Deno side's test modules (`deno task test:deno`) in two parts:
 *
 * - `parallel`: every test module of the Deno side but the serial ones, several at a time in one
 *   process (`deno test --parallel`), with the doc tests of `src/deno/`;
 * - `serial`: the modules that change the process's environment or working directory (`PATH`,
 *   `HOME`, a planted host secret), one at a time: in the parallel run they would change them under
 *   every module running beside them.
 *
 * The parallel part names its modules itself: `deno test --ignore` did not leave out every module it
 * named (a module ignored in a folder given on the command line still ran).
 * `tests/dev/serial_tests_test.ts` keeps {@linkcode SERIAL} complete.
 *
 * Both parts run (each even after the other failed), then the run's one bubblewrap notice line
 * (when tests were skipped for want of bwrap), and the process fails if either part failed.
 *
 * Usage: `deno run --allow-read --allow-write --allow-run --allow-env tests/_helpers/deno_tests.ts
 * [parallel|serial]`
 *
 * @module
 */

import { walk } from "@std/fs";
import { join, relative } from "@std/path";
import { TALLY_VARIABLE } from "./bwrap.ts";
import { runTally, takeBwrapNotice } from "./bwrap_notice.ts";
import { type ChildResult, runChild } from "./run_child.ts";

/** The modules that change process-wide state, run one at a time after the others. */
export const SERIAL: readonly string[] = [
  "tests/deno/builtins/adversarial_test.ts",
  "tests/deno/builtins/bash/bash_sandbox_failure_test.ts",
  "tests/deno/builtins/bash/bash_test.ts",
  "tests/deno/builtins/sandbox/sandboxed_commit_test.ts",
  "tests/deno/cli/client_config_test.ts",
  "tests/deno/cli/grants_command_test.ts",
  "tests/deno/mcp/deno_gateway_test.ts",
  // Not process-wide state: its hostile server's 100-deep description overflows the smaller stack
  // of a worker (where --parallel runs modules); on the main thread it is escaped and listed.
  "tests/deno/mcp/gateway/tools/remote_text_test.ts",
  "tests/deno/mcp/load_mcp_config_test.ts",
  "tests/deno/mcp/stdio_child_command_test.ts",
  "tests/deno/mcp/stdio_client_transport_test.ts",
  "tests/deno/mcp/stdio_sandbox_broad_roots_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_lifecycle_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_path_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_test.ts",
  "tests/deno/sandbox/hostile_stdio_server_attack_test.ts",
  "tests/deno/sandbox/resource_limits_attack_test.ts",
  "tests/deno/sandbox/stdio_sandbox_memory_limit_test.ts",
  "tests/deno/sandbox/stdio_sandbox_tls_test.ts",
  "tests/examples/demo_bash_test.ts",
];

/** The folders whose test modules are the Deno side's (the others have tasks of their own). */
export const FOLDERS: readonly string[] = [
  "tests/conformance",
  "tests/deno",
  "tests/dev",
  "tests/examples",
];

const ROOT = new URL("../..", import.meta.url).pathname;

/**
 * Every test module of the Deno side, relative to the repository, sorted.
 *
 * @returns The paths.
 */
export async function denoSideModules(): Promise<string[]> {
  const found = ["tests/mod_test.ts"];
  for (const folder of FOLDERS) {
    for await (const entry of walk(join(ROOT, folder), { exts: [".ts"] })) {
      if (entry.isFile && entry.name.endsWith("_test.ts")) found.push(relative(ROOT, entry.path));
    }
  }
  return found.sort();
}

/**
 * Runs one part's `deno test`, its modules adding their bubblewrap skips to `tally`. The parallel
 * part writes to this process's output as it goes; the serial part, which runs beside it, is
 * collected and written after it.
 */
async function runPart(part: Part, tally: string): Promise<ChildResult> {
  const serial = new Set(SERIAL);
  const modules = part === "serial"
    ? [...SERIAL]
    : [...(await denoSideModules()).filter((path) => !serial.has(path)), "src/deno/"];
  return await runChild([
    "test",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-env",
    "--allow-net",
    "--allow-sys",
    ...(part === "parallel" ? ["--doc", "--parallel"] : []),
    ...modules,
  ], { cwd: ROOT, env: { [TALLY_VARIABLE]: tally }, collect: part === "serial" });
}

type Part = "parallel" | "serial";

if (import.meta.main) {
  const asked = Deno.args[0];
  if (asked !== undefined && asked !== "parallel" && asked !== "serial") {
    console.error("deno_tests: name no part (both run) or one: parallel or serial");
    Deno.exit(2);
  }
  const parts: Part[] = asked === undefined ? ["parallel", "serial"] : [asked];
  const tally = runTally();
  // The serial part changes only its own process's environment and working directory: it runs
  // beside the parallel part (another process), one module at a time.
  const results = await Promise.all(parts.map((part) => runPart(part, tally.path)));
  for (const { output } of results) if (output !== undefined) await Deno.stdout.write(output);
  const notice = tally.owned ? takeBwrapNotice(tally.path) : undefined;
  if (notice !== undefined) console.error(notice);
  if (parts.length > 1) {
    console.log(
      results.map(({ code }, i) => `${code === 0 ? "ok" : "FAILED"} ${parts[i]}`).join(", "),
    );
  }
  Deno.exit(results.some(({ code }) => code !== 0) ? 1 : 0);
}
