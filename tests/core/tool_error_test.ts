import { assertEquals } from "@std/assert";
import { ERROR_CODES, isToolError, ToolError } from "../../mod.ts";

Deno.test("ToolError carries its code and message and is an Error", () => {
  const error = new ToolError("timeout", "Too slow", { cause: "x" });
  assertEquals([error.code, error.message, error.name, error.cause], [
    "timeout",
    "Too slow",
    "ToolError",
    "x",
  ]);
  assertEquals(error instanceof Error, true);
});

Deno.test("ERROR_CODES lists the ten codes", () => {
  assertEquals(ERROR_CODES, [
    "unknown_tool",
    "invalid_arguments",
    "permission_denied",
    "timeout",
    "aborted",
    "tool_error",
    "upstream_unavailable",
    "approval_required",
    "audit_unavailable",
    "rate_limited",
  ]);
});

Deno.test("isToolError() recognizes tool errors, also from another copy of the module", () => {
  const foreign = Object.assign(new Error("x"), { name: "ToolError", code: "aborted" });
  assertEquals([isToolError(new ToolError("aborted", "x")), isToolError(foreign)], [true, true]);
  const wrongCode = Object.assign(new Error("x"), { name: "ToolError", code: "nope" });
  assertEquals([isToolError(wrongCode), isToolError(new Error("x")), isToolError("x")], [
    false,
    false,
    false,
  ]);
});
