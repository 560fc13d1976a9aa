/**
 * The test task's bubblewrap detection (`tests/_helpers/bwrap.ts`), both ways: through its probe
 * seam in process, and end to end in a child `deno test` whose PATH has no `bwrap` (what a fresh
 * machine sees), outside CI (skip with one notice) and under `CI=true` (failure).
 *
 * @module
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import {
  BWRAP_INSTALL,
  bwrapNotice,
  type BwrapProbe,
  hostProbe,
  skipWithoutBwrap,
  TALLY_VARIABLE,
} from "../_helpers/bwrap.ts";
import { takeBwrapNotice } from "../_helpers/bwrap_notice.ts";

const HELPER = new URL("../_helpers/bwrap.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const RUN_PARTS = new URL("../_helpers/run_parts.ts", import.meta.url).pathname;

function probe(available: boolean, ci: boolean): BwrapProbe & { probes: number } {
  const fake = {
    probes: 0,
    available: () => (fake.probes++, available),
    ci: () => ci,
  };
  return fake;
}

Deno.test("skipWithoutBwrap() runs the test when bwrap is there, in CI or not", () => {
  for (const ci of [false, true]) {
    const present = probe(true, ci);
    assertEquals(skipWithoutBwrap(present), false);
    assertEquals(present.probes, 1);
  }
});

Deno.test("skipWithoutBwrap() skips without bwrap outside CI, and runs (to fail) under CI=true", () => {
  const absent = probe(false, false);
  assertEquals(skipWithoutBwrap(absent), true);
  assertEquals(absent.probes, 1);
  assertEquals(skipWithoutBwrap(probe(false, true)), false);
});

Deno.test("bwrapNotice() says how many, why, and the install command, on one line", () => {
  const line = bwrapNotice(29);
  assertMatch(line, /^notice: 29 tests skipped because bubblewrap \(bwrap\) is not installed/);
  assertStringIncludes(line, `"${BWRAP_INSTALL}"`);
  assertStringIncludes(line, "CI=true");
  assert(!line.includes("\n"));
  assertMatch(bwrapNotice(1), /^notice: 1 test skipped/);
});

Deno.test("takeBwrapNotice() adds up the modules' tallies once and removes the tally", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "tally");
    assertEquals(takeBwrapNotice(path), undefined);
    await Deno.writeTextFile(path, "3\n2\n");
    assertEquals(takeBwrapNotice(path), bwrapNotice(5));
    assertEquals(takeBwrapNotice(path), undefined);
    await Deno.writeTextFile(path, "0\n");
    assertEquals(takeBwrapNotice(path), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("where CI=true, bubblewrap is installed (CI never skips the sandbox tests)", () => {
  if (!hostProbe.ci()) return;
  assert(hostProbe.available(), `CI=true but bwrap is missing: ${BWRAP_INSTALL}`);
});

const NEEDS_BWRAP = `import { skipWithoutBwrap } from "${HELPER}";
const fn = () => { new Deno.Command("bwrap", { args: ["--version"] }).outputSync(); };
Deno.test({ name: "needs bwrap 1", ignore: skipWithoutBwrap(), fn });
Deno.test({ name: "needs bwrap 2", ignore: skipWithoutBwrap(), fn });
Deno.test("plain", () => {});
`;

/**
 * Runs `args` (a `deno` command) in a folder holding a module with two bwrap tests and one plain
 * test (`needs_bwrap_test.ts`), with no bwrap on PATH.
 */
async function withoutBwrap(
  args: (file: string, dir: string) => string[] | Promise<string[]>,
  env: Record<string, string>,
) {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_bwrap_detection_" });
  const file = join(dir, "needs_bwrap_test.ts");
  await Deno.writeTextFile(file, NEEDS_BWRAP);
  // A PATH with only an empty folder: no bwrap, as on a fresh machine.
  const empty = join(dir, "bin");
  await Deno.mkdir(empty);
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: await args(file, dir),
      cwd: dir,
      clearEnv: true,
      env: { PATH: empty, HOME: Deno.env.get("HOME") ?? dir, NO_COLOR: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    return { code: output.code, text };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** One child `deno test` of the module. */
function runWithoutBwrap(env: Record<string, string>) {
  // No type check: the module is the test's own text, and a check is most of a cold child's time.
  return withoutBwrap(
    (file) => ["test", "--no-prompt", "--no-check", "--config", CONFIG, "-A", file],
    env,
  );
}

Deno.test("without bwrap a deno test run skips the bwrap tests with one notice, outside CI", async () => {
  const { code, text } = await runWithoutBwrap({ ...cacheEnv() });
  assertEquals(code, 0, text);
  assertMatch(text, /ok \| 1 passed \| 0 failed \| 2 ignored/);
  assertEquals(text.split("\n").filter((line) => line.includes("notice:")), [bwrapNotice(2)]);
});

Deno.test("without bwrap the same run fails under CI=true: nothing is skipped", async () => {
  const { code, text } = await runWithoutBwrap({ ...cacheEnv(), CI: "true" });
  assertEquals(code, 1, text);
  assertMatch(text, /FAILED \| 1 passed \| 2 failed/);
  assert(!text.includes("notice:"), text);
});

Deno.test("under deno task test the modules add their skips to the run's tally and print nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const tally = join(dir, "tally");
    const { code, text } = await runWithoutBwrap({ ...cacheEnv(), [TALLY_VARIABLE]: tally });
    assertEquals(code, 0, text);
    assert(!text.includes("notice:"), text);
    assertEquals(takeBwrapNotice(tally), bwrapNotice(2));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run of several parts prints one notice line for all of them, after the parts", async () => {
  // Two parts, each a deno test of the module (as test:deno and test:interop are): the interop
  // part used to print a notice of its own.
  const { code, text } = await withoutBwrap(async (file, dir) => {
    const part = `${Deno.execPath()} test --no-prompt --no-check --config ${CONFIG} -A ${file}`;
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ tasks: { "part:a": part, "part:b": part } }),
    );
    return ["run", "--no-prompt", "-A", "--config", CONFIG, RUN_PARTS, "part:a", "part:b"];
  }, cacheEnv());
  assertEquals(code, 0, text);
  assertEquals(text.match(/ok \| 1 passed \| 0 failed \| 2 ignored/g)?.length, 2, text);
  assertEquals(text.split("\n").filter((line) => line.includes("notice:")), [bwrapNotice(4)]);
  assert(text.indexOf("notice:") > text.indexOf("part:b ("), text);
});

/** The child uses this process's Deno cache (it downloads nothing) and temporary folder. */
function cacheEnv(): Record<string, string> {
  const names = ["DENO_DIR", "TMPDIR"].filter((name) => Deno.env.get(name) !== undefined);
  return Object.fromEntries(names.map((name) => [name, Deno.env.get(name) as string]));
}

Deno.test("every bwrap skip is decided per test, so the notice counts skipped tests, not modules", async () => {
  // `const ignore = skipWithoutBwrap()` shared by seven tests counted one skip for seven.
  const shared: string[] = [];
  let scanned = 0;
  const root = new URL("../", import.meta.url).pathname;
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) pending.push(path);
      else if (entry.name.endsWith("_test.ts") && !path.endsWith("bwrap_detection_test.ts")) {
        const text = await Deno.readTextFile(path);
        if (text.includes("skipWithoutBwrap(")) scanned++;
        if (/(const|let)\s+\w+\s*=[^;\n]*skipWithoutBwrap\(/.test(text)) shared.push(path);
      }
    }
  }
  assert(scanned > 10, `only ${scanned} test modules use skipWithoutBwrap`);
  assertEquals(shared, [], "call skipWithoutBwrap() in each test's ignore option");
});
