import { assertEquals, assertThrows } from "@std/assert";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { requiredPermissions } from "../../../../src/deno/builtins/permissions/required_permissions.ts";

Deno.test({
  name: "requiredPermissions() without bash needs only reading the roots and writing the workspace",
  permissions: "none",
  fn() {
    assertEquals(requiredPermissions({ workspace: "/srv/ws", readOnlyRoots: ["/usr/share"] }), {
      read: ["/srv/ws", "/usr/share"],
      write: ["/srv/ws"],
      run: [],
      env: [],
    });
  },
});

Deno.test({
  name: "requiredPermissions() with unconfined bash runs bash and reads the default variables",
  permissions: "none",
  fn() {
    const needs = requiredPermissions({ workspace: "/srv/ws", bash: { sandbox: "none" } });
    assertEquals(needs.run, ["bash"]);
    assertEquals(needs.env, ["PATH", "HOME", "LANG", "TERM"]);
  },
});

Deno.test({
  name: "requiredPermissions() with sandboxed bash also runs bwrap, with bash's own variables",
  permissions: "none",
  fn() {
    const needs = requiredPermissions({
      workspace: "/srv/ws",
      env: ["PATH", "HOME"],
      bash: { sandbox: "bwrap", env: ["PATH"] },
    });
    assertEquals(needs.run, ["bash", "bwrap"]);
    assertEquals(needs.env, ["PATH"]);
    assertEquals(requiredPermissions({ workspace: "/srv/ws", bash: true }).run, ["bash", "bwrap"]);
  },
});

Deno.test({
  name: "requiredPermissions() lists each read path once, normalized",
  permissions: "none",
  fn() {
    const needs = requiredPermissions({
      workspace: "/srv/ws/",
      readOnlyRoots: ["/srv/ws", "/usr/share", "/usr/share/../share"],
    });
    assertEquals(needs.read, ["/srv/ws", "/usr/share"]);
    assertEquals(needs.write, ["/srv/ws"]);
  },
});

Deno.test({
  name: "requiredPermissions() gives the same answer for a context and its resolved form",
  permissions: "none",
  fn() {
    const context = {
      workspace: "/srv/ws",
      readOnlyRoots: ["/opt/data"],
      bash: { sandbox: "bwrap" as const, env: ["PATH", "LANG"] },
    };
    assertEquals(
      requiredPermissions(resolveBuiltinContext(context)),
      requiredPermissions(context),
    );
  },
});

Deno.test({
  name: "requiredPermissions() throws a TypeError for an invalid context",
  permissions: "none",
  fn() {
    assertThrows(() => requiredPermissions({ workspace: "relative/ws" }), TypeError);
    assertThrows(
      () => requiredPermissions({ workspace: "/srv/ws", extra: 1 } as never),
      TypeError,
      'unknown field "extra"',
    );
  },
});
