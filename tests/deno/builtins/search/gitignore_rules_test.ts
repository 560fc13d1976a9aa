import { assertEquals } from "@std/assert";
import { GitignoreRules } from "../../../../src/deno/builtins/search/gitignore_rules.ts";

Deno.test("GitignoreRules applies each file to its folder, deeper files overriding, negation re-including", () => {
  const rules = new GitignoreRules();
  assertEquals(rules.ignored("a.log", false), false, "no file added: nothing is ignored");
  rules.add("", "*.log\nbuild/\n/dist\n!keep.log\n# comment\n\\#hash\n");
  rules.add("pkg", "!important.log\ngenerated/*.ts\n!generated/keep.ts\n");
  const check = (path: string, isDir = false) => rules.ignored(path, isDir);
  assertEquals(check("a.log"), true);
  assertEquals(check("keep.log"), false, "negation");
  assertEquals(check("src/deep/x.log"), true, "a pattern without a slash matches at any depth");
  assertEquals(check("build", true), true);
  assertEquals(check("build", false), false, "a trailing slash matches only folders");
  assertEquals(check("src/build", true), true);
  assertEquals(check("dist", true), true);
  assertEquals(check("src/dist", true), false, "a leading slash anchors to the file's folder");
  assertEquals(check("#hash"), true);
  assertEquals(check("pkg/important.log"), false, "a deeper file re-includes");
  assertEquals(check("pkg/other.log"), true, "the root file still applies below");
  assertEquals(check("pkg/generated/a.ts"), true, "anchored to pkg/");
  assertEquals(check("generated/a.ts"), false, "not anchored to the root");
  assertEquals(check("pkg/generated/keep.ts"), false);
  assertEquals(check("src/main.ts"), false);
});

Deno.test("GitignoreRules skips a line with more than one ** (a trailing /** aside), keeping the others", () => {
  const rules = new GitignoreRules();
  rules.add("", "**/a/**/b\nx/**/y/**/z\n**/build/**\nlogs/**/*.log\n");
  const deep = Array.from({ length: 400 }, () => "a").join("/");
  assertEquals(rules.ignored(`${deep}/b`, false), false, "skipped: it would backtrack");
  assertEquals(rules.ignored("x/1/y/2/z", false), false, "skipped");
  assertEquals(rules.ignored("src/build/out.js", false), true, "a leading ** and a trailing /**");
  assertEquals(rules.ignored("logs/2024/x.log", false), true, "one ** in the middle");
});

Deno.test("GitignoreRules checks no path longer than 1024 characters (one ** is quadratic in it)", () => {
  const rules = new GitignoreRules();
  rules.add("", "a/**/b\n*.log\n");
  const deep = Array.from({ length: 600 }, () => "a").join("/");
  assertEquals(rules.ignored("a/x/b", false), true, "the rules are read");
  assertEquals(rules.ignored(`${deep.slice(0, 1001)}/b`, false), true, "1003 characters: checked");
  assertEquals(rules.ignored(`${deep}/b`, false), false, "1201 characters: listed");
  assertEquals(rules.ignored(`${deep}/x.log`, false), false);
});

Deno.test("GitignoreRules keeps 16 KiB of rules along a path, whole lines, the folders above first", () => {
  const rules = new GitignoreRules();
  // 16,367 characters of rules (the others match nothing) and a comment, then one over the limit.
  const filler = Array.from({ length: 1487 }, (_, i) => `n${String(i).padStart(9, "0")}`).join(
    "\n",
  );
  rules.add("", `first.txt\n#${"#".repeat(20_000)}\n${filler}\ncut-by-the-limit.txt\npast.txt\n`);
  // 17 characters are left below the root's rules: for each folder, with those above it.
  rules.add("sub", "longer-than-what-is-left.txt\n");
  rules.add("sub/deep", "t.txt\n");
  rules.add("other", "t.txt\n");
  assertEquals(rules.ignored("first.txt", false), true);
  assertEquals(
    rules.ignored("cut-by-the-limit.txt", false),
    false,
    "a line over the limit is left out, and the rest",
  );
  assertEquals(rules.ignored("past.txt", false), false);
  assertEquals(rules.ignored("sub/longer-than-what-is-left.txt", false), false);
  assertEquals(rules.ignored("sub/first.txt", false), true);
  assertEquals(rules.ignored("sub/deep/t.txt", false), true, "the folder above kept nothing");
  assertEquals(rules.ignored("other/t.txt", false), true);
});
