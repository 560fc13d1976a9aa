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
import { TALLY_VARIABLE, tallyPath } from "./bwrap.ts";
import { takeBwrapNotice } from "./bwrap_notice.ts";

/** The modules that change process-wide state, run one at a time after the others. */
export const SERIAL: readonly string[] = [
  "tests/deno/builtins/adversarial_test.ts",
  "tests/deno/builtins/bash/bash_sandbox_failure_test.ts",
  "tests/deno/builtins/bash/bash_test.ts",
  "tests/deno/builtins/sandbox/sandboxed_commit_test.ts",
  "tests/deno/cli/client_config_test.ts",
  "tests/deno/cli/grants_command_test.ts",
  "tests/deno/mcp/deno_gateway_test.ts",
  "tests/deno/mcp/load_mcp_config_test.ts",
  "tests/deno/mcp/stdio_child_command_test.ts",
  "tests/deno/mcp/stdio_client_transport_test.ts",
  "tests/deno/mcp/stdio_sandbox_broad_roots_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_lifecycle_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_path_attack_test.ts",
  "tests/deno/mcp/stdio_sandbox_test.ts",
  "tests/deno/sandbox/deno_package_mounts_attack_test.ts",
  "tests/deno/sandbox/hostile_stdio_server_attack_test.ts",
  "tests/deno/sandbox/resource_limits_attack_test.ts",
  "tests/deno/sandbox/stdio_sandbox_memory_limit_test.ts",
  "tests/deno/sandbox/stdio_sandbox_tls_test.ts",
  "tests/deno/sandbox/stdio_stand_in_attack_test.ts",
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

/** Runs one part's `deno test`; its modules tally their bubblewrap skips for this process. */
async function runPart(part: "parallel" | "serial"): Promise<number> {
  const serial = new Set(SERIAL);
  const modules = part === "serial"
    ? [...SERIAL]
    : [...(await denoSideModules()).filter((path) => !serial.has(path)), "src/deno/"];
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
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
    ],
    cwd: ROOT,
    env: { [TALLY_VARIABLE]: "1" },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return code;
}

if (import.meta.main) {
  const asked = Deno.args[0];
  if (asked !== undefined && asked !== "parallel" && asked !== "serial") {
    console.error("deno_tests: name no part (both run) or one: parallel or serial");
    Deno.exit(2);
  }
  const parts: ("parallel" | "serial")[] = asked === undefined ? ["parallel", "serial"] : [asked];
  const results: [string, number][] = [];
  for (const part of parts) results.push([part, await runPart(part)]);
  // Both parts' modules are this process's children: one tally, one notice line for the run.
  const notice = takeBwrapNotice(tallyPath(Deno.pid));
  if (notice !== undefined) console.error(notice);
  if (parts.length > 1) {
    console.log(
      results.map(([part, code]) => `${code === 0 ? "ok" : "FAILED"} ${part}`).join(", "),
    );
  }
  Deno.exit(results.some(([, code]) => code !== 0) ? 1 : 0);
}
