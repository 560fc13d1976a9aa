import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  checkPathInput,
  outsideError,
  protectedError,
} from "../../../../src/deno/builtins/paths/path_errors.ts";

Deno.test("checkPathInput() rejects what could be misread as another path", () => {
  assertEquals(checkPathInput("src/a.ts"), "src/a.ts");
  for (const bad of ["", "a\0", "~/.ssh/id_rsa", null]) {
    assertEquals(assertThrows(() => checkPathInput(bad), ToolError).code, "invalid_arguments");
  }
});

Deno.test("the containment errors quote the given path only, shortened when huge", () => {
  const ctx = resolveBuiltinContext({ workspace: "/ws", readOnlyRoots: ["/ro"] });
  const viaLink = outsideError("docs", "reads", { viaLink: true, ctx });
  assertEquals(viaLink.code, "permission_denied");
  assertStringIncludes(viaLink.message, "through a symbolic link");
  assertStringIncludes(viaLink.message, "read-only roots");
  const huge = outsideError("x".repeat(10_000), "writes");
  assertEquals(huge.message.length < 500, true);
  assertStringIncludes(protectedError(".git/x", ".git").message, "read-only");
});
