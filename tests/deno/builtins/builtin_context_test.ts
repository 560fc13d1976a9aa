import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import {
  type BuiltinContext,
  builtinTools,
  resolveBuiltinContext,
} from "@toolroute/toolroute/deno";

Deno.test("resolveBuiltinContext() fills in the documented defaults", () => {
  const ctx = resolveBuiltinContext({ workspace: "/srv/ws/" });
  assertEquals(ctx, {
    workspace: "/srv/ws",
    readOnlyRoots: [],
    readMaxChars: 12000,
    commandTimeoutMs: 30000,
    outputMaxChars: 120000,
    processLogChars: 12000,
    bash: false,
    protectedPaths: [".git"],
    env: ["PATH", "HOME", "LANG", "TERM"],
  });
  assertEquals(Object.isFrozen(ctx), true);
});

Deno.test("resolveBuiltinContext() resolves bash: true to the bwrap sandbox with the context's env", () => {
  const on = resolveBuiltinContext({ workspace: "/ws", bash: true, env: ["PATH"] });
  assertEquals(on.bash, {
    sandbox: "bwrap",
    env: ["PATH"],
    limits: {
      processes: 512,
      memoryMiB: 2048,
      tmpMiB: 512,
      fileMiB: 1024,
      backgroundCpuSeconds: 3600,
      diskMiB: 8192,
    },
  });
  const none = resolveBuiltinContext({
    workspace: "/ws",
    bash: { sandbox: "none", env: ["LANG"] },
  });
  assertEquals(none.bash, { sandbox: "none", env: ["LANG"] });
});

Deno.test("resolveBuiltinContext() normalizes roots and makes protected paths workspace-relative", () => {
  const ctx = resolveBuiltinContext({
    workspace: "/ws/./a/..",
    readOnlyRoots: ["/usr/share/", "/usr/share"],
    protectedPaths: [".git", "/ws/secrets/", "./node_modules/../.env"],
  });
  assertEquals(ctx.workspace, "/ws");
  assertEquals(ctx.readOnlyRoots, ["/usr/share"]);
  assertEquals(ctx.protectedPaths, [".git", "secrets", ".env"]);
});

Deno.test("resolveBuiltinContext() throws a TypeError for malformed host input", () => {
  const bad: unknown[] = [
    null,
    { workspace: "relative/ws" },
    { workspace: "" },
    { workspace: "/ws\0x" },
    { workspace: "/ws", readOnlyRoots: ["rel"] },
    { workspace: "/ws", readOnlyRoots: "/usr" },
    { workspace: "/ws", protectedPaths: ["../elsewhere"] },
    { workspace: "/ws", protectedPaths: ["/other/.git"] },
    { workspace: "/ws", env: ["NOT-A-NAME"] },
    { workspace: "/ws", bash: "yes" },
    { workspace: "/ws", bash: { sandbox: "docker" } },
    { workspace: "/ws", bash: { sandbox: "none", extra: 1 } },
    { workspace: "/ws", readOnlyRoot: ["/usr"] },
  ];
  for (const context of bad) {
    assertThrows(() => resolveBuiltinContext(context as BuiltinContext), TypeError);
  }
  const typo = assertThrows(
    () => resolveBuiltinContext({ workspace: "/ws", readOnlyRoot: [] } as BuiltinContext),
    TypeError,
  );
  assertStringIncludes(typo.message, '"readOnlyRoot"');
});

Deno.test("resolveBuiltinContext() throws a RangeError for limits that are not positive integers", () => {
  for (const value of [0, -1, 1.5, Infinity, NaN, "100"]) {
    assertThrows(
      () => resolveBuiltinContext({ workspace: "/ws", readMaxChars: value as number }),
      RangeError,
    );
  }
  assertThrows(() => resolveBuiltinContext({ workspace: "/ws", commandTimeoutMs: 0 }), RangeError);
});

Deno.test("resolveBuiltinContext() refuses a broad workspace unless allowBroadRoots is true", () => {
  for (
    const workspace of ["/", "/etc", "/usr", "/home", "/tmp", "/home/alice", "/Users/bob", "/root"]
  ) {
    assertThrows(
      () => resolveBuiltinContext({ workspace }),
      TypeError,
      "too broad to write",
      workspace,
    );
    assertEquals(resolveBuiltinContext({ workspace, allowBroadRoots: true }).workspace, workspace);
  }
  for (const workspace of ["/home/alice/project", "/srv/app", "/workspace", "/tmp/x"]) {
    assertEquals(resolveBuiltinContext({ workspace }).workspace, workspace);
  }
  assertThrows(
    () => resolveBuiltinContext({ workspace: "/srv/app", allowBroadRoots: "yes" as never }),
    TypeError,
    '"allowBroadRoots" must be true or false',
  );
});

Deno.test('builtinTools() throws a TypeError for workspace "/" (RT decision: broad roots)', () => {
  assertThrows(() => builtinTools({ workspace: "/" }), TypeError, "allowBroadRoots: true");
});

Deno.test("builtinTools() refuses a workspace that is a symlink to a broad root", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_broad_" });
  try {
    await Deno.symlink("/", `${dir}/root`);
    assertThrows(() => builtinTools({ workspace: `${dir}/root` }), TypeError, 'leads to "/"');
    const tools = builtinTools({ workspace: `${dir}/root`, allowBroadRoots: true });
    await tools.close();
    const fine = builtinTools({ workspace: dir });
    assertThrows(
      () => fine.resolve(["read_file"], { workspace: `${dir}/root` }),
      TypeError,
      "too broad to write",
    );
    await fine.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveBuiltinContext() takes the disk, CPU and proxy bounds, each a positive integer", () => {
  const ctx = resolveBuiltinContext({
    workspace: "/ws",
    bash: {
      sandbox: "bwrap",
      limits: { tmpMiB: 64, fileMiB: 8, backgroundCpuSeconds: 30, diskMiB: 100 },
      network: { allow: ["registry.npmjs.org"], maxConnections: 4, idleTimeoutMs: 500 },
    },
  });
  assertEquals(ctx.bash !== false && ctx.bash.limits, {
    processes: 512,
    memoryMiB: 2048,
    tmpMiB: 64,
    fileMiB: 8,
    backgroundCpuSeconds: 30,
    diskMiB: 100,
  });
  assertEquals(ctx.bash !== false && ctx.bash.network, {
    allow: ["registry.npmjs.org"],
    maxConnections: 4,
    idleTimeoutMs: 500,
  });
  for (
    const bad of [
      { limits: { tmpMiB: 0 } },
      { limits: { fileMiB: 1.5 } },
      { limits: { backgroundCpuSeconds: -1 } },
      { limits: { diskMiB: 0 } },
      { network: { allow: [], maxConnections: 0 } },
      { network: { allow: [], idleTimeoutMs: "1s" } },
      { network: { allow: [], other: 1 } },
    ]
  ) {
    let thrown: unknown;
    try {
      // deno-lint-ignore no-explicit-any
      resolveBuiltinContext({ workspace: "/ws", bash: { sandbox: "bwrap", ...bad } as any });
    } catch (error) {
      thrown = error;
    }
    assertEquals(
      thrown instanceof RangeError || thrown instanceof TypeError,
      true,
      JSON.stringify(bad),
    );
  }
});
