import { assertEquals } from "@std/assert";
import {
  escapeRemoteResult,
  escapeUnsafeChars,
  hasUnsafeChars,
  safeRemoteText,
} from "../../../../src/core/mcp/gateway/remote_text.ts";

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
