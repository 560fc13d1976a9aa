import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import {
  isCodexPatch,
  parseCodexPatch,
} from "../../../../src/deno/builtins/patch/codex_patch_parser.ts";

Deno.test("parseCodexPatch() reads add, delete, update and move operations in order", () => {
  const edits = parseCodexPatch(
    "\n\n*** Begin Patch\n*** Add File: a.txt\n+1\n+2\n*** Delete File: b.txt\n" +
      "*** Update File: c.txt\n*** Move to: d.txt\n@@ fn\n-x\n+y\n*** End Patch\n\n",
  );
  assertEquals(edits.map((e) => [e.kind, e.path]), [["add", "a.txt"], ["delete", "b.txt"], [
    "update",
    "c.txt",
  ]]);
  assertEquals(edits[0].kind === "add" && edits[0].text, "1\n2\n");
  assertEquals(edits[2].kind === "update" && edits[2].moveTo, "d.txt");
  assertEquals(edits[2].kind === "update" && edits[2].edit("fn\nx\n", "c.txt").text, "fn\ny\n");
});

Deno.test("parseCodexPatch() accepts a first hunk without @@ and treats empty lines as context", () => {
  const [edit] = parseCodexPatch(
    "*** Begin Patch\n*** Update File: f\n a\n\n-b\n+c\n*** End Patch",
  );
  assertEquals(edit.kind === "update" && edit.edit("a\n\nb\n", "f").text, "a\n\nc\n");
});

Deno.test("parseCodexPatch() names the line that breaks the format", () => {
  const error = assertThrows(
    () => parseCodexPatch("*** Begin Patch\n*** Update File: f\n@@\n a\n?b\n*** End Patch"),
    ToolError,
  );
  assertEquals(error.code, "invalid_arguments");
  assertStringIncludes(error.message, "line 5");
  assertThrows(
    () => parseCodexPatch("*** Begin Patch\n*** Add File: \n*** End Patch"),
    ToolError,
    "needs a path",
  );
  assertThrows(() => parseCodexPatch("*** Begin Patch\n*** End of File\n*** End Patch"), ToolError);
});

Deno.test("isCodexPatch() recognises the envelope after leading whitespace only", () => {
  assertEquals(isCodexPatch("  \n*** Begin Patch\n"), true);
  assertEquals(isCodexPatch("--- a\n+++ b\n"), false);
});

Deno.test("parseCodexPatch() ignores unified-diff line ranges after @@", () => {
  const [edit] = parseCodexPatch(
    "*** Begin Patch\n*** Update File: f\n@@ -1,2 +1,2 @@ b\n-c\n+C\n*** End Patch",
  );
  assertEquals(edit.kind === "update" && edit.edit("a\nb\nc\n", "f").text, "a\nb\nC\n");
});
