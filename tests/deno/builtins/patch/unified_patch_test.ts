import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { parseUnifiedPatch } from "../../../../src/deno/builtins/patch/unified_patch.ts";

Deno.test("parseUnifiedPatch() strips git's a/ and b/ prefixes but keeps plain names as they are", () => {
  const git = parseUnifiedPatch("--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\n");
  assertEquals(git.map((e) => e.path), ["src/x.ts"]);
  const plain = parseUnifiedPatch("--- a/x.ts\n+++ a/x.ts\n@@ -1 +1 @@\n-a\n+b\n");
  assertEquals(plain.map((e) => e.path), ["a/x.ts"]);
});

Deno.test("parseUnifiedPatch() maps /dev/null to added and deleted files and a rename to a move", () => {
  const edits = parseUnifiedPatch(
    "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+1\n+2\n\\ No newline at end of file\n" +
      "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
      "--- a/from.txt\n+++ b/to.txt\n@@ -1 +1 @@\n-a\n+b\n",
  );
  assertEquals(edits.map((e) => [e.kind, e.path]), [["add", "new.txt"], ["delete", "old.txt"], [
    "update",
    "from.txt",
  ]]);
  assertEquals(edits[0].kind === "add" && edits[0].text, "1\n2");
  assertEquals(edits[2].kind === "update" && edits[2].moveTo, "to.txt");
});

Deno.test("parseUnifiedPatch() applies with fuzz and ignores trailing whitespace", () => {
  const [edit] = parseUnifiedPatch("--- f\n+++ f\n@@ -5,3 +5,3 @@\n a\n-b\n+B\n c\n");
  assertEquals(edit.kind === "update" && edit.edit("x\na  \nb\nc\n", "f").text, "x\na  \nB\nc\n");
});

Deno.test("parseUnifiedPatch() refuses a diff without hunks", () => {
  const error = assertThrows(() => parseUnifiedPatch("--- f\n+++ f\n"), ToolError);
  assertEquals(error.code, "invalid_arguments");
  assertStringIncludes(error.message, "no hunks");
});

Deno.test("parseUnifiedPatch() keeps a CRLF file's line endings under an LF diff", () => {
  const [edit] = parseUnifiedPatch("--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n");
  assertEquals(edit.kind === "update" && edit.edit("a\r\nb\r\n", "f").text, "a\r\nB\r\n");
});
