import { assertEquals, assertThrows } from "@std/assert";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { bashEnvironment } from "../../../../src/deno/builtins/command/bash_environment.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const UNSET = "TOOLROUTE_TEST_NEVER_SET";

Deno.test({
  name: "bashEnvironment() returns the granted variables the host has, leaving out unset ones",
  permissions: { run: ["bash"], env: ["PATH", UNSET] },
  fn() {
    assertEquals(bashEnvironment(["bash"], ["PATH", UNSET]), { PATH: Deno.env.get("PATH") });
  },
});

Deno.test({
  name: "bashEnvironment() with no variables returns an empty environment",
  permissions: { run: ["bash"] },
  fn() {
    assertEquals(bashEnvironment(["bash"], []), {});
  },
});

Deno.test({
  name: "bashEnvironment() names every program Deno may not run and the flag to add",
  ignore: skipWithoutBwrap(),
  permissions: { run: ["bwrap"], env: true },
  fn() {
    const error = assertThrows(() => bashEnvironment(["bash", "bwrap"], ["PATH"]), ToolError);
    assertEquals(error.code, "permission_denied");
    assertEquals(
      error.message,
      'The sandbox denied running "bash": the host must run Deno with --allow-run=bash,bwrap',
    );
  },
});

Deno.test({
  name: "bashEnvironment() without any run permission lists both programs",
  // With bubblewrap absent the refusal names that instead (tests/deno/cli/bwrap_missing_test.ts).
  ignore: skipWithoutBwrap(),
  permissions: { run: false, env: true },
  fn() {
    const error = assertThrows(() => bashEnvironment(["bash", "bwrap"], []), ToolError);
    assertEquals(
      error.message,
      'The sandbox denied running "bash" and "bwrap": the host must run Deno with --allow-run=bash,bwrap',
    );
  },
});

Deno.test({
  name: "bashEnvironment() names the hidden variables and the whole --allow-env list",
  permissions: { run: ["bash"], env: ["PATH"] },
  fn() {
    const error = assertThrows(
      () => bashEnvironment(["bash"], ["PATH", "HOME", "LANG"]),
      ToolError,
    );
    assertEquals(error.code, "permission_denied");
    assertEquals(
      error.message,
      'The sandbox denied reading the environment variables "HOME", "LANG" that commands ' +
        "receive: the host must run Deno with --allow-env=PATH,HOME,LANG",
    );
  },
});

Deno.test({
  name: "bashEnvironment() checks programs before variables",
  permissions: { run: false, env: false },
  fn() {
    assertThrows(() => bashEnvironment(["bash"], ["PATH"]), ToolError, "--allow-run=bash");
  },
});

Deno.test({
  name:
    "bashEnvironment() asks on every call: a run permission revoked later, even all of run, refuses",
  permissions: { run: true, env: true },
  async fn() {
    assertEquals(bashEnvironment(["bash"], []), {});
    await Deno.permissions.revoke({ name: "run" });
    assertThrows(() => bashEnvironment(["bash"], []), ToolError, "--allow-run=bash");
  },
});

Deno.test({
  name: "bashEnvironment() asks on every call: one variable revoked later refuses",
  permissions: { run: ["bash"], env: ["PATH", "HOME"] },
  async fn() {
    assertEquals(Object.keys(bashEnvironment(["bash"], ["PATH"])), ["PATH"]);
    await Deno.permissions.revoke({ name: "env", variable: "PATH" });
    assertThrows(() => bashEnvironment(["bash"], ["PATH"]), ToolError, '"PATH"');
  },
});
