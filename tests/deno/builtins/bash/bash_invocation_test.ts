import { assert, assertEquals, assertMatch } from "@std/assert";
import { bashInvocation } from "../../../../src/deno/builtins/bash/bash_invocation.ts";

const base = { command: "make test", cwd: "/ws/src", env: { PATH: "/usr/bin" } };
const roots = {
  workspace: { source: "/real/ws", dest: "/ws" },
  readOnlyRoots: [],
  protectedPaths: [],
};

Deno.test("bashInvocation() runs exec commands without a new session, marked for the reaper", () => {
  const invocation = bashInvocation({ ...base, sandbox: "none", background: false });
  assertEquals(invocation.program, "bash");
  assertEquals(invocation.detached, false);
  assertEquals(invocation.sandboxed, false);
  assertEquals(invocation.args[0], "-c");
  assert(invocation.args[1].endsWith("; make test"));
  assertMatch(invocation.env.TOOLROUTE_RUN_ID, /^[0-9a-f-]{36}$/);
  assertEquals(invocation.env.PATH, "/usr/bin");
  const other = bashInvocation({ ...base, sandbox: "none", background: false });
  assert(other.env.TOOLROUTE_RUN_ID !== invocation.env.TOOLROUTE_RUN_ID);
});

Deno.test("bashInvocation() runs background commands as a process group with a host watchdog", () => {
  const invocation = bashInvocation({ ...base, sandbox: "none", background: true });
  assertEquals(invocation.detached, true);
  assertEquals(invocation.env, { PATH: "/usr/bin" });
  assert(invocation.args[1].includes(`kill -0 ${Deno.pid}`), "watches the host's pid");
  assert(invocation.args[1].endsWith("& make test"));
});

Deno.test("bashInvocation() runs sandboxed commands through bwrap, never bash directly", () => {
  for (const background of [false, true]) {
    const invocation = bashInvocation({ ...base, sandbox: "bwrap", background, roots });
    assertEquals(invocation.program, "bwrap");
    assertEquals(invocation.sandboxed, true);
    assertEquals(invocation.detached, false);
    assertEquals(invocation.args.slice(-6), [
      "--chdir",
      "/ws/src",
      "--",
      "bash",
      "-c",
      "make test",
    ]);
    assertEquals(invocation.env, { PATH: "/usr/bin" });
  }
});
