import { assertEquals, assertThrows } from "@std/assert";
import { SOURCE_PRIORITY } from "../../src/core/tool_source.ts";

Deno.test("SOURCE_PRIORITY lists the five sources highest first and cannot be changed", () => {
  assertEquals(SOURCE_PRIORITY, ["builtin", "user_mcp", "local_mcp", "function", "global_mcp"]);
  assertThrows(() => (SOURCE_PRIORITY as string[]).push("x"), TypeError);
});
