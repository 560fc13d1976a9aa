import { assert, assertEquals, assertMatch } from "@std/assert";
import { bashInvocation } from "../../../../src/deno/builtins/bash/bash_invocation.ts";

const base = { command: "make test", cwd: "/ws/src", env: { PATH: "/usr/bin" } };

Deno.test("bashInvocation() runs exec commands without a new session, marked for the reaper", () => {
  const invocation = bashInvocation({ ...base, background: false });
  assertEquals(invocation.program, "bash");
  assertEquals(invocation.detached, false);
  assertEquals(invocation.sandboxed, false);
  assertEquals(invocation.args[0], "-c");
  assert(invocation.args[1].endsWith("; make test"));
  assertMatch(invocation.env.TOOLROUTE_RUN_ID, /^[0-9a-f-]{36}$/);
  assertEquals(invocation.env.PATH, "/usr/bin");
  const other = bashInvocation({ ...base, background: false });
  assert(other.env.TOOLROUTE_RUN_ID !== invocation.env.TOOLROUTE_RUN_ID);
});

Deno.test("bashInvocation() runs background commands as a process group with a host watchdog", () => {
  const invocation = bashInvocation({ ...base, background: true });
  assertEquals(invocation.detached, true);
  assertEquals(invocation.env, { PATH: "/usr/bin" });
  assert(invocation.args[1].includes(`/proc/${Deno.pid}/stat`), "watches the host's pid");
  assert(invocation.args[1].endsWith("& make test"));
});
