import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { z } from "zod";
import {
  defineTool,
  type Policy,
  type ToolCallEvent,
  ToolRouter,
  type ToolRouterOptions,
} from "../../../mod.ts";
import { MemoryStore } from "../../../src/core/stores.ts";

const HOUR = 60 * 60_000;

/** Two tools that record every run, so a test can see what really ran. */
function limitedRouter(policy: Policy, options: ToolRouterOptions = {}) {
  const ran: { tool: string; to: string; user?: string }[] = [];
  const email = defineTool({
    name: "send_email",
    description: "Send an email",
    input: z.object({ to: z.string() }),
    run: ({ to }, { userId }) => {
      ran.push({ tool: "send_email", to, user: userId });
      return "sent";
    },
  });
  const search = defineTool({
    name: "search",
    description: "Search",
    input: z.object({ q: z.string() }),
    run: ({ q }) => {
      ran.push({ tool: "search", to: q });
      return "found";
    },
  });
  const router = new ToolRouter({ functions: [email, search], policy, ...options });
  return { router, ran };
}

const expose = (router: ToolRouter, userId?: string) =>
  router.expose({ functions: ["send_email", "search"], userId });

Deno.test("a limit admits max calls per window, then returns rate_limited with retryAfterMs and runs nothing", async () => {
  const events: ToolCallEvent[] = [];
  const { router, ran } = limitedRouter(
    { limits: [{ match: "send_email", max: 3, windowMs: HOUR }] },
    { onEvent: (event) => events.push(event) },
  );
  const tools = await expose(router, "alice");
  const results = [];
  for (let i = 0; i < 5; i++) results.push(await tools.call("send_email", { to: `x${i}@a.com` }));
  assertEquals(results.map((result) => result.code ?? "ok"), [
    "ok",
    "ok",
    "ok",
    "rate_limited",
    "rate_limited",
  ]);
  // The runaway loop really called five times, and only three emails went out.
  assertEquals(ran.map((run) => run.to), ["x0@a.com", "x1@a.com", "x2@a.com"]);
  const refused = results[3];
  assert(refused.isError);
  assert(refused.retryAfterMs! > 0 && refused.retryAfterMs! <= HOUR, String(refused.retryAfterMs));
  assertMatch(refused.text, /limit "send_email" of the router's policy allows 3 call\(s\) per/);
  assertMatch(refused.text, /Retry after \d+ s/);
  assertEquals(events.at(-1)?.code, "rate_limited");
  // Other tools are not counted.
  assertEquals((await tools.call("search", { q: "a" })).isError, false);
});

Deno.test("per user: one user's calls never use another user's limit; per router: everyone shares one", async () => {
  const perUser = limitedRouter({ limits: [{ match: "send_email", max: 1, windowMs: HOUR }] });
  const alice = await expose(perUser.router, "alice");
  const bob = await expose(perUser.router, "bob");
  assertEquals((await alice.call("send_email", { to: "a" })).isError, false);
  assertEquals((await alice.call("send_email", { to: "a2" })).code, "rate_limited");
  assertEquals((await bob.call("send_email", { to: "b" })).isError, false, "bob has his own");
  assertEquals(perUser.ran.map((run) => run.user), ["alice", "bob"]);

  const shared = limitedRouter({
    limits: [{ match: "send_email", max: 1, windowMs: HOUR, per: "router" }],
  });
  assertEquals(
    (await (await expose(shared.router, "alice")).call("send_email", { to: "a" })).isError,
    false,
  );
  assertEquals(
    (await (await expose(shared.router, "bob")).call("send_email", { to: "b" })).code,
    "rate_limited",
  );
  assertEquals(shared.ran.length, 1);
});

Deno.test("a user id cannot reach another user's count through the key's encoding", async () => {
  const { router, ran } = limitedRouter({
    limits: [{ match: "send_email", max: 1, windowMs: HOUR }],
  });
  await (await expose(router, "alice")).call("send_email", { to: "a" });
  // Ids that would collide under naive joining of key parts.
  for (const id of ["alice\u0000", "user:alice", "alice,", undefined, "anonymous"]) {
    assertEquals(
      (await (await expose(router, id)).call("send_email", { to: String(id) })).isError,
      false,
      id,
    );
  }
  assertEquals(ran.length, 6);
});

Deno.test("a per-run budget counts per runId; without one a tool set is one run", async () => {
  const { router, ran } = limitedRouter({ limits: [{ match: "send_email", max: 2 }] });
  const tools = await expose(router, "alice");
  const codes = [];
  for (let i = 0; i < 3; i++) {
    codes.push((await tools.call("send_email", { to: `r1-${i}` }, { runId: "run-1" })).code);
  }
  assertEquals(codes, [undefined, undefined, "rate_limited"]);
  const over = await tools.call("send_email", { to: "r1-3" }, { runId: "run-1" });
  assertEquals(over.retryAfterMs, undefined, "a budget has no retry time");
  assertMatch(over.text, /per run.*Do not call it again in this run/);
  assertEquals((await tools.call("send_email", { to: "r2" }, { runId: "run-2" })).code, undefined);
  // Without a runId: this tool set's own run, and a new tool set starts a new one.
  assertEquals((await tools.call("send_email", { to: "d1" })).code, undefined);
  assertEquals((await tools.call("send_email", { to: "d2" })).code, undefined);
  assertEquals((await tools.call("send_email", { to: "d3" })).code, "rate_limited");
  const next = await expose(router, "alice");
  assertEquals((await next.call("send_email", { to: "n1" })).code, undefined);
  assertEquals(ran.length, 6);
});

Deno.test("calls that alternate between runs and users in one tool set each reach their own count", async () => {
  const { router, ran } = limitedRouter({ limits: [{ match: "send_email", max: 2 }] });
  const tools = await expose(router, "alice");
  const codes = [];
  for (const runId of ["run-1", "run-2", "run-1", "run-2", "run-1", "run-2"]) {
    codes.push((await tools.call("send_email", { to: runId }, { runId })).code ?? "ok");
  }
  assertEquals(codes, ["ok", "ok", "ok", "ok", "rate_limited", "rate_limited"]);
  const bob = await expose(router, "bob");
  assertEquals((await bob.call("send_email", { to: "b" }, { runId: "run-1" })).code, undefined);
  assertEquals(
    (await tools.call("send_email", { to: "a" }, { runId: "run-1" })).code,
    "rate_limited",
  );
  assertEquals(ran.length, 5);
});

Deno.test("a limit with a specifier counts only the calls it matches", async () => {
  const { router, ran } = limitedRouter({
    limits: [{ match: "send_email(to=*@external.com)", max: 1, windowMs: HOUR }],
  });
  const tools = await expose(router, "alice");
  assertEquals((await tools.call("send_email", { to: "a@external.com" })).code, undefined);
  assertEquals((await tools.call("send_email", { to: "b@external.com" })).code, "rate_limited");
  for (let i = 0; i < 3; i++) {
    assertEquals((await tools.call("send_email", { to: `${i}@inside.com` })).code, undefined);
  }
  // Arguments that are not valid are reported as such and counted by no limit.
  assertEquals((await tools.call("send_email", "{not json")).code, "invalid_arguments");
  assertEquals(ran.length, 4);
});

Deno.test("a call refused by one limit gives back what the others counted", async () => {
  const { router, ran } = limitedRouter({
    limits: [
      { match: "*", max: 3, windowMs: HOUR },
      { match: "send_email", max: 1, windowMs: HOUR },
    ],
  });
  const tools = await expose(router, "alice");
  assertEquals((await tools.call("send_email", { to: "a" })).code, undefined);
  for (let i = 0; i < 5; i++) {
    assertEquals((await tools.call("send_email", { to: "b" })).code, "rate_limited");
  }
  // Refusals took nothing from the wider limit: two more calls of another tool fit in it.
  assertEquals((await tools.call("search", { q: "1" })).code, undefined);
  assertEquals((await tools.call("search", { q: "2" })).code, undefined);
  assertEquals((await tools.call("search", { q: "3" })).code, "rate_limited");
  assertEquals(ran.length, 3);
});

Deno.test("routers sharing one store share one limit; a request's policy adds its own", async () => {
  const store = new MemoryStore();
  const policy = { limits: [{ match: "send_email", max: 2, windowMs: HOUR }] };
  const one = limitedRouter(policy, { store });
  const two = limitedRouter(policy, { store });
  assertEquals(
    (await (await expose(one.router, "alice")).call("send_email", { to: "1" })).code,
    undefined,
  );
  assertEquals(
    (await (await expose(two.router, "alice")).call("send_email", { to: "2" })).code,
    undefined,
  );
  assertEquals(
    (await (await expose(one.router, "alice")).call("send_email", { to: "3" })).code,
    "rate_limited",
  );

  const plain = limitedRouter({});
  const strict = await plain.router.expose({
    functions: ["send_email"],
    userId: "alice",
    policy: { limits: [{ match: "send_email", max: 1, windowMs: HOUR }] },
  });
  assertEquals((await strict.call("send_email", { to: "1" })).code, undefined);
  const refused = await strict.call("send_email", { to: "2" });
  assertEquals(refused.code, "rate_limited");
  assertMatch(refused.text, /this request's policy/);
});

Deno.test("a count that reaches the store after its window ended is not reset: the next window still admits max", async () => {
  // A call counted 10 ms before the window's end whose increment lands 10 ms after it, as a store
  // under load can make it. Had the count expired with its window, the late increment would start
  // it again from 0 and admit a second call for a limit of 1 in the next window's first moments.
  const end = 500_000 * HOUR;
  let clock = end - 10;
  let lag = 0;
  const landed: number[] = [];
  const store = new MemoryStore({ now: () => clock });
  const increment = store.increment.bind(store);
  store.increment = (key, options) => {
    clock += lag;
    landed.push(clock - end);
    return increment(key, options);
  };
  const realNow = Date.now;
  Date.now = () => clock;
  try {
    const { router, ran } = limitedRouter({
      limits: [{ match: "send_email", max: 1, windowMs: HOUR, per: "router" }],
    }, { store });
    const tools = await expose(router, "alice");
    assertEquals((await tools.call("send_email", { to: "in time" })).code, undefined);
    lag = 20;
    const late = await tools.call("send_email", { to: "late" });
    lag = 0;
    assertEquals((await tools.call("send_email", { to: "next window" })).code, undefined);
    // The race really ran: the second call's count reached the store after the window's end.
    assertEquals(landed, [-10, 10, 10]);
    assertEquals(ran.map((run) => run.to), ["in time", "next window"]);
    assertEquals(late.code, "rate_limited");
  } finally {
    Date.now = realNow;
  }
});

Deno.test("an approved ask is counted when it runs; a rejected one is not", async () => {
  const { router, ran } = limitedRouter({
    ask: ["send_email"],
    limits: [{ match: "send_email", max: 1, windowMs: HOUR }],
  });
  const tools = await expose(router, "alice");
  const first = await tools.call("send_email", { to: "1" });
  assertEquals(first.code, "approval_required");
  assertEquals((await tools.reject(first.approval!, "no")).code, "permission_denied");
  const second = await tools.call("send_email", { to: "2" });
  assertEquals((await tools.approve(second.approval!)).isError, false);
  const third = await tools.call("send_email", { to: "3" });
  assertEquals((await tools.approve(third.approval!)).code, "rate_limited");
  const handled = await tools.call("send_email", { to: "4" }, { approve: () => true });
  assertEquals(handled.code, "rate_limited");
  assertEquals(ran.map((run) => run.to), ["2"]);
});

Deno.test("a malformed limit is a TypeError naming it", () => {
  const bad: unknown[] = [
    "send_email",
    [{ match: "send_email", max: 0, windowMs: 1000 }],
    [{ match: "send_email", max: 1.5 }],
    [{ match: "send_email(", max: 1 }],
    [{ match: "send_email", max: 1, windowMs: -5 }],
    // Over ten years: a store could not keep its count (Deno KV fails every call past ~8e15).
    [{ match: "send_email", max: 1, windowMs: 5e15 }],
    [{ match: "send_email", max: 1, per: "team" }],
    [{ match: "send_email", max: 1, every: 5 }],
    [null],
  ];
  for (const limits of bad) {
    const error = assertThrows(
      () => limitedRouter({ limits: limits as Policy["limits"] }),
      TypeError,
    );
    assertMatch(error.message, /Invalid router policy: .*limit/);
  }
});

Deno.test("callAll is limited like single calls: a batch cannot slip past the count", async () => {
  const { router, ran } = limitedRouter({
    limits: [{ match: "send_email", max: 2, windowMs: HOUR }],
  });
  const tools = await expose(router, "alice");
  const results = await tools.callAll(
    Array.from(
      { length: 5 },
      (_, i) => ({ id: String(i), name: "send_email", arguments: { to: `${i}` } }),
    ),
  );
  assertEquals(results.map((result) => result.code ?? "ok"), [
    "ok",
    "ok",
    "rate_limited",
    "rate_limited",
    "rate_limited",
  ]);
  assertEquals(ran.length, 2);
});

Deno.test("a store that fails fails the call closed: it does not run, and the call does not reject", async () => {
  const broken = new MemoryStore();
  broken.increment = () => Promise.reject(new Error("connection refused"));
  const { router, ran } = limitedRouter(
    { limits: [{ match: "send_email", max: 5, windowMs: HOUR }] },
    { store: broken },
  );
  const result = await (await expose(router, "alice")).call("send_email", { to: "a" });
  assertEquals(result.code, "tool_error");
  assertMatch(result.text, /did not run: its limits could not be checked/);
  assertEquals(ran, []);
});

Deno.test("two limits alike but for max share one count, and a call counts once in it", async () => {
  const store = new MemoryStore();
  const { router, ran } = limitedRouter({
    limits: [
      { match: "send_email", max: 5, windowMs: HOUR },
      { match: "send_email", max: 3, windowMs: HOUR },
    ],
  }, { store });
  const tools = await expose(router, "alice");
  const codes = [];
  for (let i = 0; i < 5; i++) {
    codes.push((await tools.call("send_email", { to: `x${i}@a.com` })).code ?? "ok");
  }
  // The stricter limit decides: three ran, not one (each call had counted twice).
  assertEquals(codes, ["ok", "ok", "ok", "rate_limited", "rate_limited"]);
  assertEquals(ran.length, 3);
  // The two limits really share one key in the store.
  const keys = (await store.list<number>(["limits"])).map(({ key }) => key.join("/"));
  assertEquals(keys.length, 1, keys.join(", "));
});
