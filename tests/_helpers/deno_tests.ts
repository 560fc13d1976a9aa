/**
 * Runs the Deno side's test modules (`deno task test:deno`): one type check of them all and of
 * the core's tests (which `deno task test:core` runs unchecked: the code both share is checked
 * once), and beside it three test runs at the same time, which do not check again:
 *
 * - `parallel`: three in five of the modules that may share a process, several at a time in one
 *   process (`deno test --parallel`), with the doc tests of `src/deno/`;
 * - `serial 1` and `serial 2`: the modules that change the process's environment or working
 *   directory (`PATH`, `HOME`, a planted host secret), half each, then one in five of the others
 *   each, one at a time in a process of their own: in the parallel run they would change them
 *   under every module running beside them.
 *
 * The serial halves alone took a fifth of the parallel run's time: the two processes stood idle
 * for most of it while the parallel one, two modules at a time, was the whole part's length. With
 * a share of the other modules each, the three end close together. The modules are dealt in their
 * sorted order, so each folder's long modules are spread over the three. The one check replaces
 * each run's own, which checked `src/` once per run; it runs beside the tests rather than before
 * them, its work filling the time the tests spend waiting on their servers and sandboxes.
 *
 * `slow` (`deno task test:slow`) runs the {@linkcode SLOW} modules the same way (those also in
 * {@linkcode SERIAL} one at a time). `core` (`deno task test:core`) runs the core's tests and doc
 * tests in parallel without permissions, unchecked.
 *
 * Each run names `deno test` a few entry modules that import its modules, not the modules
 * themselves (`writeEntries`): a module named alone costs an isolate and a load of the library.
 *
 * The parallel run names its modules itself: `deno test --ignore` did not leave out every module
 * it named (a module ignored in a folder given on the command line still ran).
 * `tests/dev/serial_tests_test.ts` keeps {@linkcode SERIAL} complete.
 *
 * Every run goes to its end (each even after another failed, or the check); the first writes as
 * it goes, the others' output (and the check's) follows it. Then the run's one bubblewrap notice line
 * (when tests were skipped for want of bwrap; under `run_parts.ts`, the whole task's one line),
 * and the process fails if the check or a run failed.
 *
 * Usage: `deno run --allow-read --allow-write --allow-run --allow-env tests/_helpers/deno_tests.ts
 * [parallel|serial|slow|core]`
 *
 * @module
 */

import { walk } from "@std/fs";
import { join, relative, toFileUrl } from "@std/path";
import { TALLY_VARIABLE } from "./bwrap.ts";
import { runTally, takeBwrapNotice } from "./bwrap_notice.ts";
import { type ChildResult, runChild, writeAll } from "./run_child.ts";

/** The modules that change process-wide state, run one at a time beside the others. */
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
  "tests/deno/mcp/stdio_secret_args_attack_test.ts",
  "tests/deno/sandbox/deno_package_mounts_attack_test.ts",
  "tests/deno/sandbox/hostile_stdio_server_attack_test.ts",
  "tests/deno/sandbox/resource_limits_attack_test.ts",
  "tests/deno/sandbox/stdio_sandbox_memory_limit_test.ts",
  "tests/deno/sandbox/stdio_sandbox_tls_test.ts",
  "tests/deno/sandbox/stdio_stand_in_attack_test.ts",
  "tests/examples/demo_bash_test.ts",
];

/**
 * The slow modules, left out of `deno task test` and run by `deno task test:slow` (which CI runs
 * too, in `deno task ok`): cold starts of npm servers, conformance suites, long attack suites.
 */
export const SLOW: readonly string[] = [
  // The MCP conformance suites: two cold Deno processes (suite and driver) per client scenario,
  // 24 of them; the server scenarios of two suite versions against serve.
  "tests/conformance/conformance_client_test.ts",
  "tests/deno/cli/conformance_server_test.ts",
  // Attack suites that build their world big: 50,000 folders; as many mounts as the bound allows;
  // files built against the matcher, 32 MiB rounds; a memory hog and a fork bomb run to their
  // limits.
  "tests/deno/builtins/planted_repository_overflow_attack_test.ts",
  "tests/deno/builtins/sandbox/protected_mounts_test.ts",
  "tests/deno/builtins/search/matching_cannot_hang_test.ts",
  // Sandbox sessions of 66 users started one after another, past the idle-user sweep's threshold,
  // racing it.
  "tests/deno/builtins/builtin_tools_sweep_race_attack_test.ts",
  // Swap races: a process exchanging a folder with a link as fast as it can for seconds (a core
  // each) while file writes go through that folder.
  "tests/deno/builtins/sandbox/file_write_swap_attack_test.ts",
  "tests/deno/sandbox/hostile_stdio_server_attack_test.ts",
  // Two processes racing 10,000 calls for one limit in a shared Deno KV file.
  "tests/deno/store/shared_limit_test.ts",
  // npm servers and the MCP Inspector started cold through npx.
  "tests/deno/cli/inspector_cli_test.ts",
  "tests/deno/cli/npm_servers_test.ts",
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

/** A `deno test` run of this runner: which modules, and how. */
export interface Run {
  /** The name its result is reported under. */
  name: string;
  modules: string[];
  /** Several entry modules at a time, in workers (`--parallel`), or one on the main thread. */
  parallel: boolean;
  /** The files and folders whose doc examples the run tests too. */
  doc: string[];
  /** Whether the run has the permissions the Deno side's tests need (the core's have none). */
  permitted: boolean;
}

/**
 * The share of the modules that may share a process dealt to the parallel run: three in
 * {@linkcode DEAL}, and one each to the two serial runs.
 */
const DEAL = 5;

/** The entry modules a parallel run's modules are dealt into (see {@linkcode writeEntries}). */
const PARALLEL_ENTRIES = 6;

/** The runs of a part: the modules of the part that must run alone run beside the others. */
export async function runsOf(part: "fast" | "slow" | "core"): Promise<Run[]> {
  if (part === "core") {
    return [{
      name: "core",
      modules: await coreModules(),
      parallel: true,
      doc: ["mod.ts", "src/core/"],
      permitted: false,
    }];
  }
  const serial = new Set(SERIAL);
  const slow = new Set(SLOW);
  const mine = (path: string) => slow.has(path) === (part === "slow");
  const modules = (await denoSideModules()).filter(mine);
  const alone = SERIAL.filter(mine);
  const half = Math.ceil(alone.length / 2);
  const shared = modules.filter((path) => !serial.has(path));
  // Dealt in sorted order: a folder's long modules (the CLI's, the sandbox's) go to all three.
  const dealt = (lane: number) => shared.filter((_, i) => i % DEAL === DEAL - 2 + lane);
  const runs: Run[] = [
    {
      name: part === "fast" ? "parallel" : "slow",
      modules: shared.filter((_, i) => i % DEAL < DEAL - 2),
      parallel: true,
      doc: part === "fast" ? ["src/deno/"] : [],
      permitted: true,
    },
    // Two processes, each running its half of the list one module at a time: a module changes
    // only its own process's environment and working directory. Halves of the list, not every
    // other module: every other one put most of the long modules in one process.
    ...[0, 1].map((lane) => ({
      name: `${part === "fast" ? "serial" : "slow serial"} ${lane + 1}`,
      modules: [...(lane === 0 ? alone.slice(0, half) : alone.slice(half)), ...dealt(lane)],
      parallel: false,
      doc: [],
      permitted: true,
    })),
  ];
  return runs.filter((run) => run.modules.length > 0);
}

/** The core's test modules (`tests/core/`), relative to the repository, sorted. */
async function coreModules(): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of walk(join(ROOT, "tests/core"), { exts: [".ts"] })) {
    if (entry.isFile && entry.name.endsWith("_test.ts")) found.push(relative(ROOT, entry.path));
  }
  return found.sort();
}

/**
 * The core's tests and doc tests (`deno task test:core` runs them without a check of its own):
 * checked with the Deno side's, the code they share is checked once, not twice.
 */
export const CORE_CHECKED: readonly string[] = ["mod.ts", "src/core/", "tests/core/"];

/**
 * Every module of the runs, the doc tests they run, and (for the fast runs) the core's tests and
 * doc tests, type-checked once.
 */
function checkAll(
  runs: Run[],
  options: { collect: boolean; core: boolean },
): Promise<ChildResult> {
  const modules = [
    ...runs.flatMap((run) => [...run.modules, ...run.doc]),
    ...(options.core ? CORE_CHECKED : []),
  ];
  return runChild([
    "check",
    ...(runs.some((run) => run.doc.length > 0) || options.core ? ["--doc"] : []),
    ...modules,
  ], { cwd: ROOT, collect: options.collect });
}

/**
 * Writes the entry modules of a run into `dir`: each imports its share of the run's modules (a
 * parallel run's dealt in sorted order over {@linkcode PARALLEL_ENTRIES}, a serial run's all in
 * one, in their order). `deno test` gives each module it is named a V8 isolate of its own, which
 * then loads the library and the MCP SDK again: about a quarter of a second of CPU for an empty
 * module, more than half of the suite's CPU in all. Modules named by an entry share its isolate
 * and its one load; their tests still run one at a time, each with its own sanitizers, and report
 * the place of their own module. A module's top level runs when its entry loads, before the
 * entry's first test: no module of this suite changes the process at its top level
 * (`tests/dev/serial_tests_test.ts` keeps that so).
 *
 * @returns The entries' paths.
 */
async function writeEntries(run: Run, dir: string): Promise<string[]> {
  const count = run.parallel ? Math.min(PARALLEL_ENTRIES, run.modules.length) : 1;
  const paths: string[] = [];
  for (let entry = 0; entry < count; entry++) {
    const modules = run.modules.filter((_, i) => i % count === entry);
    const path = join(dir, `${run.name.replaceAll(" ", "_")}_${entry + 1}_of_${count}.ts`);
    const lines = modules.map((module) => `import "${toFileUrl(join(ROOT, module)).href}";`);
    await Deno.writeTextFile(path, `${lines.join("\n")}\n`);
    paths.push(path);
  }
  return paths;
}

/**
 * Runs one `deno test`, its modules adding their bubblewrap skips to `tally`. The first run writes
 * to this process's output as it goes; the others, which run beside it, are collected and written
 * after it.
 */
async function runTests(
  run: Run,
  options: { tally: string; collect: boolean; dir: string },
): Promise<ChildResult> {
  return runChild([
    "test",
    "--no-prompt",
    // Checked once, beside the runs (`checkAll`); the core's by the Deno side's check.
    "--no-check",
    ...(run.permitted
      ? [
        "--allow-read",
        "--allow-write",
        "--allow-run",
        "--allow-env",
        "--allow-net",
        "--allow-sys",
      ]
      : []),
    ...(run.parallel ? ["--parallel"] : []),
    ...(run.doc.length > 0 ? ["--doc", ...run.doc] : []),
    ...await writeEntries(run, options.dir),
  ], {
    cwd: ROOT,
    env: { [TALLY_VARIABLE]: options.tally },
    collect: options.collect,
  });
}

if (import.meta.main) {
  const asked = Deno.args[0];
  const parts = [undefined, "parallel", "serial", "slow", "core"];
  if (!parts.includes(asked)) {
    console.error(
      "deno_tests: name no part (the fast runs) or one: parallel, serial, slow or core",
    );
    Deno.exit(2);
  }
  const part = asked === "slow" || asked === "core" ? asked : "fast";
  const runs = (await runsOf(part))
    .filter((run) => part !== "fast" || asked === undefined || run.name.startsWith(asked));
  const tally = runTally();
  const dir = await Deno.makeTempDir({ prefix: "toolroute_test_entries_" });
  // A serial run changes only its own process's environment and working directory: it runs
  // beside the parallel one (another process), one module at a time. The core's run is checked
  // by the Deno side's check (`CORE_CHECKED`).
  const [checked, ...results] = await Promise.all([
    part === "core"
      ? { code: 0, output: new Uint8Array(), written: true }
      : checkAll(runs, { collect: true, core: asked === undefined }),
    ...runs.map((run, i) => runTests(run, { tally: tally.path, collect: i > 0, dir })),
  ]);
  await Deno.remove(dir, { recursive: true });
  for (const { output, written } of [...results, checked]) {
    if (!written) await writeAll(Deno.stdout, output);
  }
  const notice = tally.owned ? takeBwrapNotice(tally.path) : undefined;
  if (notice !== undefined) console.error(notice);
  console.log(
    [
      ...(part === "core" ? [] : [`${checked.code === 0 ? "ok" : "FAILED"} check`]),
      ...results.map(({ code }, i) => `${code === 0 ? "ok" : "FAILED"} ${runs[i].name}`),
    ].join(", "),
  );
  Deno.exit(checked.code !== 0 || results.some(({ code }) => code !== 0) ? 1 : 0);
}
