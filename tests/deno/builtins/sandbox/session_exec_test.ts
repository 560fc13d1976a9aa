import { assertStringIncludes } from "@std/assert";
import { startFailure } from "../../../../src/deno/builtins/sandbox/session_exec.ts";

Deno.test("startFailure() names the limit a failed spawn ran into, and never echoes the supervisor's text", () => {
  assertStringIncludes(
    startFailure({ name: "Error", message: "Resource temporarily unavailable (os error 11)" }),
    "process limit is reached",
  );
  assertStringIncludes(
    startFailure({ name: "Error", message: "Cannot allocate memory (os error 12)" }),
    "memory limit is reached",
  );
  const other = startFailure({ name: "NotFound", message: "No such file: /secret/<script>" });
  assertStringIncludes(other, "bash is missing inside it or the working directory is gone");
});
