/**
 * The user docs (README.md and docs/*.md) as a new user reads them: every page is linked from the
 * README; no page speaks of the project's own history (review rounds, sessions, decisions or
 * findings by number, commits); and the conformance results docs/cli.md sums up are the ones
 * docs/conformance.md lists and the conformance test asserts.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";

const ROOT = new URL("../..", import.meta.url).pathname;

async function read(path: string): Promise<string> {
  return await Deno.readTextFile(join(ROOT, path));
}

async function userDocs(): Promise<string[]> {
  const docs: string[] = ["README.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  return docs.sort();
}

/** Words that name the project's history, which mean nothing to a user. */
const HISTORY: [RegExp, string][] = [
  [/\bround \d+\b/i, "a review round"],
  [/\bsession \d+\b/i, "a work session"],
  [/\bs\d\d[a-z]\b/, "a work session's branch"],
  [/\bissue \d+\b/i, "an issue number"],
  [/\bdecision \d+\b/i, "a decision number"],
  [/\bfindings? \d+\b/i, "a finding number"],
  [/\bwork items?\b/i, "a work item"],
  [/\bRT-\d+\b/, "a red-team finding number"],
  // A short commit hash: hex with a digit and a letter (`sha256-…` digests are longer).
  [/(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}(?![\w-])/, "a commit"],
];

Deno.test("every page under docs/ is linked from the README", async () => {
  const readme = await read("README.md");
  const pages = (await userDocs()).filter((doc) => doc !== "README.md");
  assert(pages.length > 0);
  const unlinked = pages.filter((page) => !readme.includes(`](${page}`));
  assertEquals(unlinked, [], "link each from README.md");
});

Deno.test("the user docs name no rounds, sessions, decisions, findings by number or commits", async () => {
  const found: string[] = [];
  for (const doc of await userDocs()) {
    for (const [number, line] of (await read(doc)).split("\n").entries()) {
      for (const [pattern, what] of HISTORY) {
        const match = line.match(pattern);
        if (match) found.push(`${doc}:${number + 1}: ${what}: "${match[0]}"`);
      }
    }
  }
  assertEquals(found, [], "say what a section is about instead");
});

Deno.test("the history patterns catch what they are for", () => {
  const caught = (text: string) => HISTORY.some(([pattern]) => pattern.test(text));
  for (
    const text of [
      "## Round 3 findings",
      "Attacks on session 21's changes",
      "Since s24a a bash stage",
      "Decision 4 of issue 25",
      "(round 3, finding 3)",
      "pass on bbfbcb5:",
      "RT-1: sandboxed bash",
    ]
  ) assert(caught(text), text);
  for (
    const text of [
      "a round trip",
      "`argumentsDigest`: sha256-12b8f711fa7370f6d2d201709c153a1ed9c8040b6164110ba9cf666ad30a06d1",
      "sessions per user",
      "27 scenarios pass",
      "defaced",
    ]
  ) assert(!caught(text), text);
});

/** The keys of one `const NAME: Record<string, number> = { … };` in the conformance test. */
function recordKeys(source: string, name: string): string[] {
  const body = source.match(new RegExp(`const ${name}[^=]*= \\{([^}]*)\\}`))?.[1];
  if (body === undefined) throw new Error(`no ${name} in the conformance test`);
  return [...body.matchAll(/^\s*"([^"]+)":/gm)].map(([, key]) => key);
}

/** The backticked names of one paragraph of docs/conformance.md, from `start` to the next blank line. */
function listedAfter(doc: string, start: string): string[] {
  const from = doc.indexOf(start);
  if (from === -1) throw new Error(`docs/conformance.md has no "${start}"`);
  const paragraph = doc.slice(from, doc.indexOf("\n\n", from));
  return [...paragraph.matchAll(/`([a-z0-9-]+)`/g)].map(([, name]) => name)
    // The command, named in passing among the scenarios.
    .filter((name) => name !== "serve");
}

Deno.test("docs/cli.md and docs/conformance.md give the conformance results the test asserts", async () => {
  const test = await read("tests/deno/cli/conformance_server_test.ts");
  const conformance = await read("docs/conformance.md");
  const cliDoc = (await read("docs/cli.md")).replaceAll(/\s+/g, " ");
  const v1 = recordKeys(test, "MUST_PASS");
  const v2026 = recordKeys(test, "MUST_PASS_2026");
  assertEquals(
    listedAfter(conformance, `**${v1.length} of `).toSorted(),
    v1.toSorted(),
    "the 0.1.16 list",
  );
  assertEquals(
    listedAfter(conformance, `**${v2026.length} scenarios pass`).toSorted(),
    v2026.toSorted(),
    "the 2026-07-28 list",
  );
  const total = conformance.match(/\*\*(\d+) of (\d+) scenarios pass/)!;
  assert(cliDoc.includes(`pass (${total[1]} of ${total[2]})`), "docs/cli.md's 0.1.16 count");
  assert(
    cliDoc.includes(`(0.2.0-alpha.12): ${v2026.length} scenarios pass`),
    "docs/cli.md's 2026-07-28 count",
  );
});
