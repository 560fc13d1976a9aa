import { assertEquals } from "@std/assert";
import { Redactor } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import { ToolError } from "../../../../../mod.ts";

Deno.test("Redactor removes header values and bearer tokens, not short or common words", () => {
  const redactor = new Redactor({
    url: "https://x.example/mcp",
    headers: { Authorization: "Bearer sk-live-123456", "X-Team": "ops" },
  });
  assertEquals(
    redactor.text("denied for Bearer sk-live-123456 (token sk-live-123456), team ops"),
    "denied for [redacted] (token [redacted]), team ops",
  );
  const error = redactor.toolError(new ToolError("tool_error", "bad key sk-live-123456"));
  assertEquals((error as ToolError).message, "bad key [redacted]");
  assertEquals((error as ToolError).code, "tool_error");
});

Deno.test("Redactor removes a stdio server's env values", () => {
  const redactor = new Redactor({ command: "server", env: { API_KEY: "abcdef-secret-42" } });
  assertEquals(redactor.text("key abcdef-secret-42 rejected"), "key [redacted] rejected");
});
