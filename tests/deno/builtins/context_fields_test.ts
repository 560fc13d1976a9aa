import { assertEquals, assertThrows } from "@std/assert";
import {
  describe,
  envName,
  limit,
  protectedPath,
} from "../../../src/deno/builtins/context_fields.ts";

Deno.test("context field checks throw TypeError or RangeError with the field's name", () => {
  assertEquals(limit(undefined, { field: "x", fallback: 5 }), 5);
  assertThrows(
    () => limit(0, { field: "readMaxChars", fallback: 5 }),
    RangeError,
    '"readMaxChars"',
  );
  assertThrows(() => envName("A=B", "env[0]"), TypeError, '"env[0]"');
  assertEquals(protectedPath("/ws/a/b/", { workspace: "/ws", field: "protectedPaths[0]" }), "a/b");
  assertThrows(
    () => protectedPath(".", { workspace: "/ws", field: "protectedPaths[0]" }),
    TypeError,
  );
  assertEquals([describe({}), describe([]), describe(null), describe("s")], [
    "an object",
    "an array",
    "null",
    '"s"',
  ]);
});

Deno.test("protectedPath() keeps ./name anchored and a bare name for any depth", () => {
  assertEquals(
    protectedPath("./deno.json", { workspace: "/ws", field: "protectedPaths[0]" }),
    "./deno.json",
  );
  assertEquals(
    protectedPath("deno.json", { workspace: "/ws", field: "protectedPaths[0]" }),
    "deno.json",
  );
  assertEquals(
    protectedPath("./a/../.env", { workspace: "/ws", field: "protectedPaths[0]" }),
    ".env",
  );
  assertEquals(protectedPath("./a/b", { workspace: "/ws", field: "protectedPaths[0]" }), "a/b");
});
