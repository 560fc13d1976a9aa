import { assertEquals, assertStringIncludes } from "@std/assert";
import { sandboxFailure } from "../../../src/deno/sandbox/session_ended.ts";

Deno.test("sandboxFailure() names bubblewrap's own error", () => {
  const message = sandboxFailure({
    exitCode: 1,
    stdout: "",
    stderr: "bwrap: setting up uid map: Permission denied\n",
  });
  assertStringIncludes(String(message), "could not start");
  assertStringIncludes(String(message), "setting up uid map: Permission denied");
  assertStringIncludes(
    String(message),
    "Nothing was read, written or run, and nothing runs unconfined",
  );
});

Deno.test("sandboxFailure() leaves the command's own failures alone", () => {
  assertEquals(
    sandboxFailure({ exitCode: 1, stdout: "", stderr: "cat: x: No such file or directory\n" }),
    undefined,
  );
  assertEquals(
    sandboxFailure({ exitCode: 1, stdout: "some output", stderr: "bwrap: imitation\n" }),
    undefined,
  );
  assertEquals(
    sandboxFailure({ exitCode: 2, stdout: "", stderr: "bwrap: imitation\n" }),
    undefined,
  );
  assertEquals(sandboxFailure({ exitCode: 0, stdout: "", stderr: "" }), undefined);
});
