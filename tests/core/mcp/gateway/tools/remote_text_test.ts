import { assertEquals, assertRejects, assertStrictEquals } from "@std/assert";
import { isToolError, ToolError } from "../../../../../src/core/tool_error.ts";
import { isToolOutput, toolOutput } from "../../../../../src/core/tool_output.ts";
import {
  escapedResult,
  escapeRemoteResult,
  escapeUnsafeChars,
  hasUnsafeChars,
  safeRemoteText,
} from "../../../../../src/core/mcp/gateway/tools/remote_text.ts";

Deno.test("escapeUnsafeChars() escapes C0/C1 controls, DEL and bidi controls, keeps newline and tab", () => {
  assertEquals(
    escapeUnsafeChars("a\x1b[31mred\u202Eevil\u2066x\u2069\x85\x7f\r\n\tend"),
    "a\\u001B[31mred\\u202Eevil\\u2066x\\u2069\\u0085\\u007F\\u000D\n\tend",
  );
  assertEquals(escapeUnsafeChars("plain ünïcödé 漢字 \u200D"), "plain ünïcödé 漢字 \u200D");
  assertEquals(hasUnsafeChars("read_file"), false);
  assertEquals(hasUnsafeChars("read\u202Eelif"), true);
});

Deno.test("safeRemoteText() caps after escaping, with a visible marker", () => {
  assertEquals(safeRemoteText("short", 10), "short");
  const capped = safeRemoteText("x".repeat(1_000_000), 4096);
  assertEquals(
    capped.startsWith("x".repeat(4096) + " […truncated by toolroute: 1000000 characters"),
    true,
  );
  assertEquals(capped.length < 4200, true);
});

Deno.test("escapeRemoteResult() escapes a string or the text blocks of a result", () => {
  assertEquals(escapeRemoteResult("\x1b]0;title\x07"), "\\u001B]0;title\\u0007");
  assertEquals(
    escapeRemoteResult({
      content: [{ type: "text", text: "\u202E" }, { type: "image", data: "x" }],
    }),
    { content: [{ type: "text", text: "\\u202E" }, { type: "image", data: "x" }] },
  );
  assertEquals(escapeRemoteResult(42), 42);
});

Deno.test("escapeRemoteResult() passes a result with nothing to escape on as it is, not a copy", () => {
  const plain = toolOutput({ content: [{ type: "text", text: "ok\n\tfine" }] });
  assertStrictEquals(escapeRemoteResult(plain), plain);
  const unsafe = toolOutput({ content: [{ type: "text", text: "a\x1b[2Jb" }] });
  const escaped = escapeRemoteResult(unsafe);
  assertEquals(escaped.content, [{ type: "text", text: "a\\u001B[2Jb" }]);
  assertEquals(isToolOutput(escaped), true);
  assertEquals(unsafe.content, [{ type: "text", text: "a\x1b[2Jb" }]);
});

Deno.test("escapedResult() escapes a remote result's text and a remote error's message", async () => {
  const result = await escapedResult(
    Promise.resolve({ content: [{ type: "text", text: "\u202E" }] }),
  );
  assertEquals(result.content, [{ type: "text", text: "\\u202E" }]);
  const error = await assertRejects(() =>
    escapedResult(Promise.reject(new ToolError("tool_error", "bad\x07 thing")))
  );
  assertEquals(isToolError(error) && [error.code, error.message], [
    "tool_error",
    "bad\\u0007 thing",
  ]);
});

Deno.test("escapeRemoteResult() escapes an embedded resource's text and every string of structuredContent, keeps base64", () => {
  const result = toolOutput({
    content: [
      { type: "resource", resource: { uri: "a\u202E", text: "t\x1b", blob: "\u202E" } },
      { type: "image", data: "\u202E", mimeType: "image/png", _meta: { note: "\x07" } },
    ],
    structuredContent: { deep: [{ "k\u2066": "v\x85" }], plain: "ok", n: 1 },
  });
  const escaped = escapeRemoteResult(result);
  assertEquals(escaped.content, [
    { type: "resource", resource: { uri: "a\\u202E", text: "t\\u001B", blob: "\u202E" } },
    { type: "image", data: "\u202E", mimeType: "image/png", _meta: { note: "\\u0007" } },
  ]);
  assertEquals(escaped.structuredContent, {
    deep: [{ "k\\u2066": "v\\u0085" }],
    plain: "ok",
    n: 1,
  });
  assertEquals(isToolOutput(escaped), true);
  const clean = toolOutput({ content: [], structuredContent: { a: { b: ["c"] } } });
  assertStrictEquals(escapeRemoteResult(clean), clean);
});

Deno.test("escapeRemoteResult() withholds a result nested deeper than it checks instead of passing it on", () => {
  let deep: unknown = "\u202Ebottom";
  for (let i = 0; i < 1_200; i++) deep = { d: deep };
  const error = (() => {
    try {
      escapeRemoteResult({ content: [], structuredContent: deep });
    } catch (thrown) {
      return thrown;
    }
  })();
  assertEquals(isToolError(error) && error.code, "tool_error");
});
