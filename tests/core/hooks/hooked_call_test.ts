import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { z } from "zod";
import {
  defineTool,
  type ToolCallEvent,
  ToolRouter,
  type ToolRouterOptions,
} from "../../../mod.ts";
import type { HookCall, ToolHook } from "../../../src/core/hooks/mod.ts";
import type { AuditRecord } from "../../../src/core/stores.ts";

function setup(options: Partial<ToolRouterOptions> = {}) {
  const runs: Record<string, unknown>[] = [];
  const events: ToolCallEvent[] = [];
  const records: AuditRecord[] = [];
  const files = defineTool({
    name: "files",
    description: "Lists files",
    input: z.object({ dir: z.string(), limit: z.number().optional() }),
    run: (args) => {
      runs.push(args);
      return `listed ${args.dir}`;
    },
  });
  const router = new ToolRouter({
    functions: [files],
    onEvent: (event) => events.push(event),
    audit: { write: (record) => void records.push(record) },
    ...options,
  });
  return { router, runs, events, records };
}

Deno.test("before hooks run in order; a rewrite is what runs, and the event and audit record say so", async () => {
  const seen: string[] = [];
  const { router, runs, events, records } = setup({
    hooks: [
      {
        name: "cap",
        before: (call) => {
          seen.push(`cap:${JSON.stringify(call.args)}`);
          return { args: { ...call.args, limit: 10 } };
        },
      },
      { name: "watch", before: (call) => void seen.push(`watch:${JSON.stringify(call.args)}`) },
    ],
  });
  const tools = await router.expose({ functions: ["files"], userId: "alice" });
  assertEquals(await tools.invoke("files", { dir: "src" }), "listed src");
  assertEquals(seen, ['cap:{"dir":"src"}', 'watch:{"dir":"src","limit":10}']);
  assertEquals(runs, [{ dir: "src", limit: 10 }]);
  assertEquals(events[0].hooks, [{ hook: "cap", action: "args" }]);
  assertEquals(records[0].hooks, [{ hook: "cap", action: "args" }]);
});

Deno.test("a hook that denies, throws, times out or answers nonsense runs nothing", async () => {
  const cases: [ToolHook, string, RegExp][] = [
    [{ before: () => ({ deny: "not on Sundays" }) }, "permission_denied", /not on Sundays/],
    [
      {
        before: () => {
          throw new Error("hook crashed");
        },
      },
      "tool_error",
      /hook crashed/,
    ],
    [{ timeoutMs: 20, before: () => new Promise(() => {}) }, "tool_error", /within 20 ms/],
    [{ before: () => 42 as never }, "tool_error", /neither arguments/],
    [{ before: () => ({ args: { dir: 7 } }) }, "invalid_arguments", /"dir" must be string/],
    [{ before: () => ({ args: { dir: "x", rm: true } }) }, "invalid_arguments", /not a parameter/],
  ];
  for (const [hook, code, text] of cases) {
    const { router, runs, events } = setup({ hooks: [hook] });
    const tools = await router.expose({ functions: ["files"] });
    const result = await tools.call("files", { dir: "src" });
    assertEquals(result.code, code, result.text);
    assertMatch(result.text, text);
    assertEquals(runs, [], "nothing ran");
    assertEquals(events.length, 1);
    assertEquals(events[0].hooks?.[0].hook, "hook 1");
  }
});

Deno.test("an after hook replaces the result; one that throws withholds it (the tool did run)", async () => {
  const replaced = setup({
    hooks: [{ after: (_call, result) => ({ ...result, text: result.text.toUpperCase() }) }],
  });
  const tools = await replaced.router.expose({ functions: ["files"] });
  assertEquals(await tools.invoke("files", { dir: "src" }), "LISTED SRC");
  assertEquals(replaced.events[0].hooks, [{ hook: "hook 1", action: "replace" }]);

  const failing = setup({
    hooks: [{
      name: "audit-mirror",
      after: () => {
        throw new Error("down");
      },
    }],
  });
  const set = await failing.router.expose({ functions: ["files"] });
  const result = await set.call("files", { dir: "secret" });
  assertEquals(failing.runs.length, 1, "the call ran");
  assertEquals(result.code, "tool_error");
  assertMatch(result.text, /Hook "audit-mirror" failed after .* its result is withheld/);
  assert(!result.text.includes("listed"), "the result is withheld");
});

Deno.test("a rewrite is checked by the policy again: a hook narrows, never widens", async () => {
  const { router, runs } = setup({
    policy: { deny: ["files(dir=/etc*)"], ask: ["files(dir=home*)"] },
    hooks: [{ before: (call) => ({ args: { dir: call.args.dir === "a" ? "/etc" : "home" } }) }],
  });
  const tools = await router.expose({ functions: ["files"] });
  const denied = await tools.call("files", { dir: "a" });
  assertEquals(denied.code, "permission_denied");
  assertMatch(denied.text, /denied by policy rule "files\(dir=\/etc\*\)"/);
  const asks = await tools.call("files", { dir: "b" });
  assertEquals(asks.code, "permission_denied");
  assertMatch(asks.text, /would need a person's approval/);
  assertEquals(runs, []);
});

Deno.test("request hooks run after the router's, for that request only", async () => {
  const order: string[] = [];
  const { router } = setup({
    hooks: [{ name: "router", before: () => void order.push("router") }],
  });
  const one = await router.expose({
    functions: ["files"],
    hooks: [{ name: "request", before: () => void order.push("request") }],
  });
  const other = await router.expose({ functions: ["files"] });
  await one.call("files", { dir: "a" });
  await other.call("files", { dir: "a" });
  assertEquals(order, ["router", "request", "router"]);
  assertThrows(() => new ToolRouter({ hooks: [{ before: 1 }] as never }), TypeError);
});

Deno.test("hooks run in callAll and on approvals, resumed or answered", async () => {
  const calls: HookCall[] = [];
  const { router, runs } = setup({
    policy: { ask: ["files(dir=private*)"] },
    hooks: [{ before: (call) => void calls.push(call) }],
  });
  const tools = await router.expose({ functions: ["files"], userId: "alice" });
  const results = await tools.callAll([
    { name: "files", arguments: { dir: "a" } },
    { name: "files", arguments: { dir: "private" } },
  ]);
  assertEquals(results.map((result) => result.code), [undefined, "approval_required"]);
  assertEquals(calls.length, 1, "an ask does not reach the hooks before it is approved");
  await router.resume(results[1].approval!, { approved: true });
  assertEquals(calls.length, 2);
  assertEquals(calls[1].userId, "alice");
  assertEquals(runs.length, 2);
});

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

Deno.test("property: no hook, grant or edit ever turns a policy deny into a run", async () => {
  const dirs = ["src", "src/a", "etc", "etc/passwd", "home", "tmp", "private/key"];
  let attacks = 0;
  let ran = 0;
  const globs = ["src*", "etc*", "home", "private*", "*", "tmp"];
  for (let seed = 1; seed <= 60; seed++) {
    const next = random(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const rules = (count: number) =>
      Array.from({ length: count }, () => `files(dir=${pick(globs)})`);
    const policy = {
      deny: rules(1 + Math.floor(next() * 2)),
      ask: rules(Math.floor(next() * 2)),
      default: pick(["allow", "ask"] as const),
    };
    // What the policy alone says about each directory (hooks, grants and edits aside).
    const denied = new Set<string>();
    const chosen = (dir: string) => (denied.has(dir) && attacks++, dir);
    const hooks: ToolHook[] = [
      { before: () => (next() < 0.5 ? { args: { dir: chosen(pick(dirs)) } } : undefined) },
      {
        before: () => (next() < 0.2 ? { args: { dir: chosen(pick(dirs)), limit: 1 } } : undefined),
      },
    ];
    const runs: string[] = [];
    const files = defineTool({
      name: "files",
      description: "Lists files",
      input: z.object({ dir: z.string(), limit: z.number().optional() }),
      run: ({ dir }) => void runs.push(dir),
    });
    const router = new ToolRouter({
      functions: [files],
      policy,
      hooks,
      approve: () => ({
        approved: true,
        scope: pick(["once", "session", "always"] as const),
        ...(next() < 0.5 ? { arguments: { dir: chosen(pick(dirs)) } } : {}),
      }),
    });
    const tools = await router.expose({ functions: ["files"], userId: "alice" });
    const judge = new ToolRouter({ functions: [files], policy });
    const plain = await judge.expose({ functions: ["files"] });
    for (const dir of dirs) {
      if ((await plain.call("files", { dir })).code === "permission_denied") denied.add(dir);
    }
    runs.length = 0;
    for (let i = 0; i < 12; i++) await tools.call("files", { dir: chosen(pick(dirs)) });
    ran += runs.length;
    for (const dir of runs) {
      assert(
        !denied.has(dir),
        `seed ${seed}: "${dir}" is denied by ${JSON.stringify(policy)} and ran`,
      );
    }
  }
  // The attacks ran: calls, rewrites and edits aimed at denied directories, among calls that ran.
  assert(attacks > 100, `only ${attacks} attempts at a denied directory`);
  assert(ran > 100, `only ${ran} calls ran`);
});

Deno.test("property: no grant or cache entry applies to another user", async () => {
  const { resultCacheHook } = await import("../../../src/core/hooks/mod.ts");
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const users = ["alice", "bob", "carol"];
    const asked: string[] = [];
    const runs: string[] = [];
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({ q: z.string() }),
      readOnly: true,
      run: ({ q }, { userId }) => (runs.push(`${userId}:${q}`), `${userId} sees ${q}`),
    });
    const router = new ToolRouter({
      functions: [lookup],
      policy: { ask: ["lookup"] },
      hooks: [resultCacheHook()],
      approve: (request) => (asked.push(request.userId!), { approved: true, scope: "always" }),
    });
    const sets = new Map(
      await Promise.all(
        users.map(async (user) =>
          [user, await router.expose({ functions: ["lookup"], userId: user })] as const
        ),
      ),
    );
    const granted = new Set<string>();
    for (let i = 0; i < 15; i++) {
      const user = users[Math.floor(next() * users.length)];
      const q = ["a", "b"][Math.floor(next() * 2)];
      const before = asked.length;
      const text = await sets.get(user)!.invoke("lookup", { q });
      assertEquals(text, `${user} sees ${q}`, `seed ${seed}: a cached result crossed users`);
      if (asked.length > before) {
        assert(!granted.has(user), `seed ${seed}: ${user} was asked twice`);
        granted.add(user);
      } else assert(granted.has(user), `seed ${seed}: ${user} ran on another user's grant`);
    }
  }
});

Deno.test("a hook that changes its copy of the arguments changes nothing that runs", async () => {
  const seen: unknown[] = [];
  const { router, runs } = setup({
    policy: { deny: ["files(dir=/etc*)"] },
    hooks: [
      {
        before: (call) => {
          (call.args as Record<string, unknown>).dir = "/etc";
          seen.push(call.args.dir);
        },
      },
      { before: (call) => void seen.push(call.args.dir) },
      { after: (call) => void ((call.args as Record<string, unknown>).dir = "/etc") },
    ],
  });
  const tools = await router.expose({ functions: ["files"] });
  assertEquals(await tools.invoke("files", { dir: "src" }), "listed src");
  assertEquals(seen, ["/etc", "src"], "the change was made, and the next hook did not see it");
  assertEquals(runs, [{ dir: "src" }]);
});
