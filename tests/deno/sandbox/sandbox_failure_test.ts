import { assertEquals, assertStringIncludes } from "@std/assert";
import { sandboxFailure } from "../../../src/deno/sandbox/sandbox_failure.ts";

Deno.test("sandboxFailure() names bubblewrap's own error", () => {
  const message = sandboxFailure(1, "", "bwrap: setting up uid map: Permission denied\n");
  assertStringIncludes(String(message), "could not start");
  assertStringIncludes(String(message), "setting up uid map: Permission denied");
});

Deno.test("sandboxFailure() leaves the command's own failures alone", () => {
  assertEquals(sandboxFailure(1, "", "cat: x: No such file or directory\n"), undefined);
  assertEquals(sandboxFailure(1, "some output", "bwrap: imitation\n"), undefined);
  assertEquals(sandboxFailure(2, "", "bwrap: imitation\n"), undefined);
  assertEquals(sandboxFailure(0, "", ""), undefined);
});
