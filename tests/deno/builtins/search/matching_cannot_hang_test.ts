/**
 * Issue 25, finding 2: a model's regular expression or glob froze the host's event loop (in
 * process) or the sandbox session's supervisor (`grep "^(a|a)*$"` over 30 `a`s: 14–53 s; 40: hours).
 * Each attack below runs through the router, in process and in the sandbox; each asserts what the
 * call returned (the hostile pattern reached the matcher and its lines were judged, or it was
 * refused with the specific error) and that a timer scheduled alongside fired while the call was
 * in flight.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import type { BuiltinContext } from "@toolroute/toolroute/deno";
import type { ToolSet } from "@toolroute/toolroute";
import { makeFixture } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { run, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";

interface Grep {
  matches: { path: string; line: number; text: string }[];
  truncated: boolean;
}

/**
 * Runs a call with a turn of the event loop queued alongside (an immediate); asserts that it ran
 * before the call ended (at the search's first tick, or while it waited for I/O). That a long
 * search keeps yielding, so that other users are served, is `immediate_yield_attack_test.ts`'s
 * (it counts their answers): a wall-clock check here failed when the machine's load stretched a
 * search's last slice.
 */
async function withTimer<T>(call: () => Promise<T>): Promise<T> {
  const order: string[] = [];
  const turn = setImmediate(() => order.push("turn"));
  try {
    const result = await call();
    order.push("call");
    assertEquals(order, ["turn", "call"], "the event loop ran while the call was in flight");
    return result;
  } finally {
    clearImmediate(turn);
  }
}

const A40 = "a".repeat(40);
// Many copies, so that matching them spans several slices (and pauses).
const HOSTILE = {
  "redos/alternation.txt": `${A40}\n`.repeat(2000) + "b\n",
  "redos/nested.txt": `${A40}!\n`.repeat(2000) + "aaa\n",
  "redos/repeat.txt": `${"x".repeat(3000)}${"a".repeat(19)}\n`.repeat(50) + `${"ya".repeat(20)}\n`,
};

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name: `grep${label} runs catastrophic-backtracking expressions in linear time`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, HOSTILE);
      await using s = await searchTools(wrap({ ...f.context, outputMaxChars: 1e6 }));
      const grep = (pattern: string, path: string) =>
        withTimer(() => run<Grep>(s.tools, "grep", { pattern, path, maxResults: 5000 }));

      // ^(a|a)*$: every line of 40 a's matches, the last one ("b") does not.
      const alternation = await grep("^(a|a)*$", "redos/alternation.txt");
      assertEquals(alternation.matches.length, 2000);
      assertEquals(alternation.matches[1999], {
        path: "redos/alternation.txt",
        line: 2000,
        text: A40,
      });
      // (a+)+$: 40 a's then "!" never match (what backtracks in JavaScript); "aaa" does.
      const nested = await grep("(a+)+$", "redos/nested.txt");
      assertEquals(nested.matches, [{ path: "redos/nested.txt", line: 2001, text: "aaa" }]);
      // (.*a){20}: 19 a's after 3000 x's never match; 20 "ya" pairs do.
      const repeat = await grep("(.*a){20}", "redos/repeat.txt");
      assertEquals(repeat.matches.map((m) => m.line), [51]);
      // The whole tree, the three at once: 2000 + 2000 + "aaa" + the "ya" line.
      const all = await grep("^(a|a)*$|(a+)+!$|(.*a){20}", "redos");
      assertEquals(all.matches.length, 4002);
    },
  });

  Deno.test({
    name: `grep${label} looks for a literal in a file built against it in bounded steps`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      // Every b of 15 MiB nearly matches: a search by comparing takes the text times the
      // literal's length. 64 characters are searched so, by windows with pauses; 400 run in RE2,
      // linear in the text alone.
      for (const length of [64, 400]) {
        const needle = "ab".repeat(length / 2);
        const near = "ab".repeat(length / 2 - 1) + "ac";
        await Deno.writeTextFile(
          `${f.workspace}/built${length}.txt`,
          `${near.repeat(Math.floor((15 << 20) / length))}\n${needle}\n`,
        );
      }
      await using s = await searchTools(wrap(f.context));
      for (const length of [64, 400]) {
        const pattern = "ab".repeat(length / 2);
        const found = await withTimer(() =>
          run<Grep>(s.tools, "grep", { pattern, path: `built${length}.txt` })
        );
        assertEquals(found.matches.map((m) => m.line), [2], `${length}`);
      }
    },
  });

  Deno.test({
    name: `grep${label} refuses backreferences and lookaround, saying what to write instead`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, { "a.txt": "abab\n" });
      await using s = await searchTools(wrap(f.context));
      for (
        const [pattern, says] of [
          ["(ab)\\1", "backreferences"],
          ["(?<x>ab)\\k<x>", "backreferences"],
          ["a(?=b)", "lookahead"],
          ["(?<!x)ab", "lookbehind"],
          ["(?>ab)", "atomic groups"],
          ["a++b", "possessive quantifiers"],
        ]
      ) {
        const result = await s.tools.call("grep", { pattern });
        assert(result.isError, pattern);
        assertEquals(result.code, "invalid_arguments", pattern);
        assertStringIncludes(result.text, says);
        assertStringIncludes(result.text, "linear time");
      }
      // The flags and the JavaScript escapes still work.
      const found = await run<Grep>(s.tools, "grep", { pattern: "\\u0041B", ignoreCase: true });
      assertEquals(found.matches, [{ path: "a.txt", line: 1, text: "abab" }]);
    },
  });

  Deno.test({
    name: `glob${label} matches many ** and * in linear time over a deep tree and long names`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      const deep = Array.from({ length: 40 }, (_, i) => `d${i}`).join("/");
      await writeTree(f.workspace, {
        [`${deep}/x`]: "found\n",
        [`${deep}/y`]: "not x\n",
        [`names/${"a".repeat(200)}`]: "no b\n",
        [`names/${"a".repeat(200)}b`]: "ends in b\n",
      });
      await using s = await searchTools(wrap(f.context));
      const stars = `${"**/".repeat(30)}x`;
      const globbed = await withTimer(() =>
        run<{ paths: string[] }>(s.tools, "glob", { pattern: stars })
      );
      assertEquals(globbed.paths, [`${deep}/x`]);
      // Within a name: what std's whole-segment expression backtracked over for minutes.
      const named = await withTimer(() =>
        run<{ paths: string[] }>(s.tools, "glob", { pattern: `names/${"*a".repeat(8)}*b` })
      );
      assertEquals(named.paths, [`names/${"a".repeat(200)}b`]);
      // Only `*` and literals: the walk's own name filter (in the sandbox, the supervisor's).
      const byName = await withTimer(() =>
        run<{ paths: string[] }>(s.tools, "glob", { pattern: `**/${"*a".repeat(8)}*b` })
      );
      assertEquals(byName.paths, [`names/${"a".repeat(200)}b`]);
      // grep's file filter takes the same globs.
      const filtered = await withTimer(() =>
        run<Grep>(s.tools, "grep", { pattern: "found", glob: `${"**/".repeat(30)}x` })
      );
      assertEquals(filtered.matches, [{ path: `${deep}/x`, line: 1, text: "found" }]);
    },
  });

  Deno.test({
    name: `glob${label} skips a .gitignore line whose ** would backtrack over a deep tree`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      // 200 folders named a and a file c: `ignore`'s expression for this line backtracks over
      // the folders for seconds before it fails on c (a power of the depth).
      const deep = Array.from({ length: 200 }, () => "a").join("/");
      const tree: Record<string, string> = {
        ".gitignore": "**/a/**/a/**/a/**/b\nskip.txt\n",
        [`${deep}/b`]: "deep\n",
        [`${deep}/c`]: "deep\n",
        "skip.txt": "ignored\n",
        "keep.txt": "kept\n",
      };
      await writeTree(f.workspace, tree);
      await using s = await searchTools(wrap(f.context));
      const listed = await withTimer(() =>
        run<{ paths: string[] }>(s.tools, "glob", { pattern: "**/*", maxResults: 1000 })
      );
      // The .gitignore was read (skip.txt is left out below), its backtracking line skipped.
      assertEquals(listed.paths.filter((path) => path.startsWith(deep)), [
        `${deep}/b`,
        `${deep}/c`,
      ]);
      const top = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "*" });
      assertEquals(top.paths, [".gitignore", "hello.txt", "keep.txt"]);
    },
  });

  Deno.test({
    name: `glob${label} and grep's glob refuse extglob, nested or not`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, { "a+(b).txt": "literal\n", "aaa.txt": "a\n" });
      await using s = await searchTools(wrap(f.context));
      for (const pattern of ["+(+(a))", "*(a|aa)*(a|aa).txt", "!(x).txt", "@(a)", "?(a)"]) {
        for (
          const [tool, args] of [["glob", { pattern }], ["grep", {
            pattern: "a",
            glob: pattern,
          }]] as const
        ) {
          const result = await s.tools.call(tool, args);
          assertEquals(result.code, "invalid_arguments", `${tool} ${pattern}`);
          assertStringIncludes(result.text, "extglob");
        }
      }
      // Escaped, the same characters are literal.
      const literal = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "a\\+(b).txt" });
      assertEquals(literal.paths, ["a+(b).txt"]);
    },
  });
}

Deno.test({
  name: "grep in the sandbox leaves the session's next read_file unstalled",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await writeTree(f.workspace, HOSTILE);
    await using s = await searchTools(sandboxed({ ...f.context, outputMaxChars: 1e6 }));
    const order: string[] = [];
    const grep = run<Grep>(s.tools, "grep", { pattern: "^(a|a)*$", maxResults: 5000 })
      .then((result) => {
        order.push("grep");
        return result;
      });
    const read = (s.tools as ToolSet).call("read_file", { path: "hello.txt" }).then((result) => {
      order.push("read_file");
      return result;
    });
    const [found, text] = await Promise.all([grep, read]);
    assertEquals(found.matches.length, 2001, "2000 lines of 40 a's, and aaa");
    assert(!text.isError, text.text);
    assertStringIncludes(text.text, "hello");
    assertEquals(order.length, 2);
  },
});

Deno.test({
  name: "grep in the sandbox takes files in rounds of 32 MiB and finds the matches of every round",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    // Four files of 12 MiB: the third ends the first round (36 MiB), the fourth is a round of its own.
    const body = `${"z".repeat(1023)}\n`.repeat(12 * 1024);
    for (let i = 0; i < 4; i++) {
      await Deno.writeTextFile(`${f.workspace}/big${i}.txt`, `${body}marker ${i}\n`);
    }
    await using s = await searchTools(sandboxed(f.context));
    for (const pattern of ["marker \\d", "marker"]) {
      const found = await withTimer(() => run<Grep>(s.tools, "grep", { pattern }));
      assertEquals(
        found.matches.map((m) => [m.path, m.line, m.text]),
        [0, 1, 2, 3].map((i) => [`big${i}.txt`, 12 * 1024 + 1, `marker ${i}`]),
        pattern,
      );
    }
  },
});
