import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import {
  applyCodexChunks,
  type CodexChunk,
} from "../../../../src/deno/builtins/patch/codex_chunks.ts";

function chunk(old: string[], replacement: string[], extra: Partial<CodexChunk> = {}): CodexChunk {
  return { old, new: replacement, added: 1, removed: 1, eof: false, line: 1, ...extra };
}

Deno.test("applyCodexChunks() matches exactly first, then ignoring whitespace and typographic punctuation", () => {
  const text = "say(\u201Chi\u201D) \u2014 ok  \n";
  const result = applyCodexChunks(text, [chunk(['say("hi") - ok'], ["done"])], { path: "f" });
  assertEquals(result.text, "done\n");
});

Deno.test("applyCodexChunks() prefers the end of the file for an End of File hunk", () => {
  const text = "x\nend\nx\nend\n";
  const result = applyCodexChunks(text, [chunk(["x", "end"], ["x", "END"], { eof: true })], {
    path: "f",
  });
  assertEquals(result.text, "x\nend\nx\nEND\n");
});

Deno.test("applyCodexChunks() applies hunks in order, each after the previous one", () => {
  const text = "a\nb\na\nb\n";
  const result = applyCodexChunks(text, [chunk(["a"], ["A1"]), chunk(["a"], ["A2"])], {
    path: "f",
  });
  assertEquals(result.text, "A1\nb\nA2\nb\n");
});

Deno.test("applyCodexChunks() gives an empty file a final newline when it adds lines", () => {
  assertEquals(
    applyCodexChunks("", [chunk([], ["new"], { removed: 0 })], { path: "f" }).text,
    "new\n",
  );
});

Deno.test("applyCodexChunks() names the file, the hunk and the first line that did not match", () => {
  const error = assertThrows(
    () =>
      applyCodexChunks("a\nb\nc\nd\n", [chunk(["a"], ["A"]), chunk(["c", "zzz"], ["q"])], {
        path: "src/x.ts",
      }),
    ToolError,
  );
  assertStringIncludes(error.message, '"src/x.ts", hunk 2');
  assertStringIncludes(error.message, '"zzz"');
  const header = assertThrows(
    () =>
      applyCodexChunks("a\n", [chunk(["a"], ["b"], { header: "class Missing" })], { path: "f" }),
    ToolError,
  );
  assertStringIncludes(header.message, '"class Missing"');
});
