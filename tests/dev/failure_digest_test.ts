/**
 * CI keeps only a run's last lines: a failed gate named its failed part but the test's report,
 * written minutes earlier, was cut away. The runners end with the failed tests, short.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import { failedTestsInShort, failureDigest } from "../_helpers/failure_digest.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

const FAILING = `
Deno.test("adds up", () => {});
Deno.test("a race the gate lost", () => {
  throw new Error("sent 1, heard 0\\nsecond line of the message");
});
Deno.test("a refused name", () => {
  throw new TypeError("expected b_search, got search");
});
`;

/** A folder with one failing test module and a task `t` that tests it. */
async function failingProject(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolroute-digest-" });
  await Deno.writeTextFile(join(dir, "failing_test.ts"), FAILING);
  await Deno.writeTextFile(
    join(dir, "deno.json"),
    JSON.stringify({ tasks: { t: "deno test --no-check failing_test.ts", u: "echo fine" } }),
  );
  return dir;
}

Deno.test("run_parts ends with each failed test's name, place and error, after the parts' results", async () => {
  const dir = await failingProject();
  try {
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        join(ROOT, "deno.json"),
        "--allow-run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        join(ROOT, "tests/_helpers/run_parts.ts"),
        "--together",
        "u",
        "t",
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
    }).output();
    assertEquals(code, 1);
    const text = new TextDecoder().decode(stdout);
    const tail = text.slice(text.lastIndexOf("\nparts:"));
    assertStringIncludes(tail, "FAILED t (");
    assertStringIncludes(tail, "failed in t:");
    assertStringIncludes(tail, "a race the gate lost => ./failing_test.ts:3:6");
    assertStringIncludes(tail, "error: Error: sent 1, heard 0");
    assertStringIncludes(tail, "a refused name => ./failing_test.ts:6:6");
    assertStringIncludes(tail, "expected b_search, got search");
    assert(!tail.includes("adds up"), `a passing test is in the digest:\n${tail}`);
    assert(!tail.includes("failed in u"), `a passing part has a digest:\n${tail}`);
    // The very last lines name the failed tests, one line each: CI kept only seven lines.
    assertEquals(text.trimEnd().split("\n").slice(-3), [
      "FAILED failing_test.ts:3:6 a race the gate lost",
      "FAILED failing_test.ts:6:6 a refused name",
      "1 of 2 parts failed: t",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("failureDigest keeps a few lines per failure and bounds the whole", () => {
  const error = (i: number) => [
    `test ${i} => ./a_test.ts:${i}:6`,
    `error: Error: failure ${i}`,
    ...Array.from({ length: 20 }, (_, line) => `    at frame ${line}`),
    "",
  ];
  const output = [
    "\x1b[0m\x1b[1m\x1b[37m\x1b[41m ERRORS \x1b[0m",
    "",
    ...Array.from({ length: 30 }, (_, i) => error(i)).flat(),
    "\x1b[0m\x1b[1m\x1b[37m\x1b[41m FAILURES \x1b[0m",
    "",
    "test 0 => ./a_test.ts:0:6",
  ].join("\n");
  const digest = failureDigest(output);
  assertEquals(digest.length, 60);
  assertEquals(digest.slice(0, 3), [
    "test 0 => ./a_test.ts:0:6",
    "    error: Error: failure 0",
    "        at frame 0",
  ]);
  assertEquals(digest.filter((line) => line.startsWith("test 0 ")).length, 1);
  assertStringIncludes(digest.at(-1)!, "more lines");
  // No test failed (a check, the formatter): the last lines before Deno's backtrace.
  const fmt = [
    "Task fmt:check deno fmt --check",
    "",
    "from /repo/tests/a_test.ts:",
    " 99 | -    onEvent: (event) => events.push(event),",
    " 99 | +    onEvent: (event) =>",
    "",
    "error: Found 1 not formatted file in 826 files",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  assertEquals(failureDigest(fmt), fmt.split("\n").slice(0, 7).filter((line) => line !== ""));
});

Deno.test("failedTestsInShort names each failed test on one short line, at most four lines", () => {
  const digest = (i: number) => [
    `test ${i} ${"long ".repeat(i === 1 ? 60 : 0)}=> ./a_test.ts:${i}:6`,
    `    error: Error: failure ${i} => not a name`,
  ];
  assertEquals(failedTestsInShort([digest(0), digest(2)]), [
    "FAILED a_test.ts:0:6 test 0",
    "FAILED a_test.ts:2:6 test 2",
  ]);
  const long = failedTestsInShort([digest(1)]);
  assertEquals(long.length, 1);
  assertEquals(long[0].length, 150);
  assert(long[0].startsWith("FAILED a_test.ts:1:6 test 1 long long") && long[0].endsWith("…"));
  assertEquals(failedTestsInShort([[0, 1, 2].flatMap(digest), [3, 4].flatMap(digest)]), [
    "FAILED a_test.ts:0:6 test 0",
    long[0],
    "FAILED a_test.ts:2:6 test 2",
    "FAILED … and 2 more tests, named above",
  ]);
});
