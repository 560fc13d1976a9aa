import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { z } from "zod";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  defineTool,
  type Policy,
  type ToolCallEvent,
  ToolRouter,
  type ToolRouterOptions,
} from "../../../mod.ts";
import { MemoryStore } from "../../../src/core/stores.ts";

const SECRET = "a secret of at least sixteen bytes";

/** A router with one `send` and one `deploy` tool that record every run. */
function router(options: Partial<ToolRouterOptions> & { answer?: ApprovalAnswer } = {}) {
  const runs: { tool: string; args: Record<string, unknown> }[] = [];
  const asked: ApprovalRequest[] = [];
  const events: ToolCallEvent[] = [];
  const send = defineTool({
    name: "send",
    description: "Sends a message",
    input: z.object({ to: z.string(), body: z.string().optional() }),
    run: (args) => {
      runs.push({ tool: "send", args });
      return `sent to ${args.to}`;
    },
  });
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys",
    input: z.object({ target: z.string(), note: z.string().optional() }),
    run: (args) => {
      runs.push({ tool: "deploy", args });
      return `deployed ${args.target}`;
    },
  });
  const { answer = { approved: true, scope: "session" }, ...rest } = options;
  const made = new ToolRouter({
    functions: [send, deploy],
    approvalSecret: SECRET,
    approve: (request) => {
      asked.push(request);
      return answer;
    },
    onEvent: (event) => events.push(event),
    ...rest,
  });
  return { router: made, runs, asked, events };
}

const EVERYTHING = { functions: ["send", "deploy"] };

Deno.test("100 calls of one tool after a session grant ask once, and all 100 run", async () => {
  const { router: r, runs, asked, events } = router({ policy: { ask: ["send"] } });
  const tools = await r.expose({ ...EVERYTHING, userId: "alice" });
  for (let i = 0; i < 100; i++) {
    const result = await tools.call("send", { to: `user${i}@example.com` });
    assertEquals(result.isError, false, result.text);
  }
  assertEquals(asked.length, 1);
  assertEquals(runs.length, 100);
  const [grant] = await r.grants({ userId: "alice" });
  assertEquals([grant.tool, grant.rule, grant.scope, grant.userId], [
    "send",
    "send",
    "session",
    "alice",
  ]);
  const lifetime = Date.parse(grant.expiresAt!) - Date.parse(grant.createdAt);
  assertEquals(lifetime, 8 * 60 * 60_000, "session grants last 8 hours by default");
  assertEquals(events[0].grantId, grant.id, "the answer that made the grant names it");
  assertEquals(events[1].grantId, grant.id, "later calls name the grant that let them run");
  assertEquals(events[1].approval, "approved");
});

Deno.test("a grant covers only what the rule's specifier covers, and never another rule's asks", async () => {
  const policy: Policy = { ask: ["deploy(staging*)", "deploy(prod*)"] };
  const { router: r, runs, asked } = router({ policy });
  const tools = await r.expose({ ...EVERYTHING, userId: "alice" });
  assertEquals((await tools.call("deploy", { target: "staging-1" })).isError, false);
  assertEquals(asked.length, 1);
  // Same rule, covered: no question.
  assertEquals((await tools.call("deploy", { target: "staging-2" })).isError, false);
  assertEquals(asked.length, 1);
  // Same rule asks (one string matches) but does not cover every string: asked again.
  await tools.call("deploy", { target: "staging-3", note: "and drop the database" });
  assertEquals(asked.length, 2, "the grant's specifier does not cover the note");
  // Another rule: asked again.
  await tools.call("deploy", { target: "prod-1" });
  assertEquals(asked.length, 3);
  assertEquals(asked.map((request) => request.rule), [
    "deploy(staging*)",
    "deploy(staging*)",
    "deploy(prod*)",
  ]);
  assertEquals(runs.length, 4, "every asked call was approved by the handler");
});

Deno.test("a grant is one user's: another user of the same router is asked", async () => {
  const { router: r, asked } = router({ policy: { ask: ["send"] } });
  const alice = await r.expose({ ...EVERYTHING, userId: "alice" });
  const bob = await r.expose({ ...EVERYTHING, userId: "bob" });
  const nobody = await r.expose(EVERYTHING);
  await alice.call("send", { to: "a" });
  await alice.call("send", { to: "b" });
  assertEquals(asked.length, 1);
  await bob.call("send", { to: "c" });
  assertEquals(asked.map((request) => request.userId), ["alice", "bob"]);
  await nobody.call("send", { to: "d" });
  assertEquals(asked.length, 3, "a request without a user is not any named user");
  assertEquals((await r.grants({ userId: "alice" })).length, 1);
  assertEquals((await r.grants()).length, 3);
});

Deno.test("a deny rule wins over a grant: the granted tool's denied call does not run", async () => {
  const { router: r, runs, asked } = router({
    policy: { ask: ["deploy"], deny: ["deploy(prod*)"] },
  });
  const tools = await r.expose({ ...EVERYTHING, userId: "alice" });
  await tools.call("deploy", { target: "staging" });
  assertEquals(asked.length, 1);
  const denied = await tools.call("deploy", { target: "prod" });
  assertEquals(denied.code, "permission_denied");
  assertEquals(runs.map((run) => run.args.target), ["staging"]);
});

Deno.test("once asks every time; always lasts until revoked; session ends after grantTtlMs", async () => {
  const once = router({ policy: { ask: ["send"] }, answer: { approved: true, scope: "once" } });
  const tools = await once.router.expose({ ...EVERYTHING, userId: "alice" });
  await tools.call("send", { to: "a" });
  await tools.call("send", { to: "b" });
  assertEquals(once.asked.length, 2);
  assertEquals(await once.router.grants(), []);

  const always = router({ policy: { ask: ["send"] }, answer: { approved: true, scope: "always" } });
  const forever = await always.router.expose({ ...EVERYTHING, userId: "alice" });
  await forever.call("send", { to: "a" });
  const [grant] = await always.router.grants();
  assertEquals([grant.scope, grant.expiresAt], ["always", undefined]);
  await forever.call("send", { to: "b" });
  assertEquals(always.asked.length, 1);
  assertEquals(await always.router.revokeGrant(grant.id), true);
  assertEquals(await always.router.revokeGrant(grant.id), false);
  await forever.call("send", { to: "c" });
  assertEquals(always.asked.length, 2, "a revoked grant asks again");

  const short = router({ policy: { ask: ["send"] }, grantTtlMs: 1 });
  const brief = await short.router.expose({ ...EVERYTHING, userId: "alice" });
  await brief.call("send", { to: "a" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(await short.router.grants(), [], "the session grant ended");
  await brief.call("send", { to: "b" });
  assertEquals(short.asked.length, 2);
});

Deno.test("neverSticky rules and tools ask every time, whatever scope the answer gives", async () => {
  const ruled = router({
    policy: { ask: ["send", "deploy"], neverSticky: ["send(to=*@bank.com)"] },
  });
  const tools = await ruled.router.expose({ ...EVERYTHING, userId: "alice" });
  await tools.call("send", { to: "ceo@bank.com" });
  await tools.call("send", { to: "ceo@bank.com" });
  assertEquals(ruled.asked.length, 2, "a neverSticky rule's call makes no grant");
  assertEquals(await ruled.router.grants(), []);
  await tools.call("send", { to: "friend@example.com" });
  await tools.call("send", { to: "friend@example.com" });
  assertEquals(ruled.asked.length, 3, "other calls of the tool may be granted");
  // Even with a grant for `send`, the neverSticky call asks.
  await tools.call("send", { to: "ceo@bank.com" });
  assertEquals(ruled.asked.length, 4);

  const sticky = defineTool({
    name: "wire",
    description: "Wires money",
    input: z.object({ amount: z.number() }),
    run: ({ amount }) => `wired ${amount}`,
  });
  let asked = 0;
  const r = new ToolRouter({
    functions: [{ ...sticky, neverSticky: true }],
    policy: { ask: ["wire"] },
    approve: () => (asked++, { approved: true, scope: "always" }),
  });
  const wire = await r.expose({ functions: ["wire"], userId: "alice" });
  await wire.call("wire", { amount: 1 });
  await wire.call("wire", { amount: 2 });
  assertEquals(asked, 2);
  assertThrows(() => new ToolRouter({ policy: { neverSticky: ["x("] } }), TypeError);
});

Deno.test("a grant written into a shared store without the secret, or changed there, grants nothing", async () => {
  const store = new MemoryStore();
  const { router: r, asked } = router({ policy: { ask: ["send"] }, store });
  const tools = await r.expose({ ...EVERYTHING, userId: "alice" });
  await tools.call("send", { to: "a" });
  const [entry] = await store.list<Record<string, unknown>>(["grants"]);
  assertEquals(entry.key.slice(0, 2), ["grants", "u:alice"], "grants live under one prefix");
  // The attacker copies alice's grant to bob and widens it to `deploy`.
  await store.set(["grants", "u:bob", "forged"], { ...entry.value, id: "forged", userId: "bob" });
  await store.set(["grants", "u:alice", "widened"], {
    ...entry.value,
    id: "widened",
    tool: "deploy",
    rule: "deploy",
  });
  const bob = await r.expose({ ...EVERYTHING, userId: "bob" });
  const before = asked.length;
  await bob.call("send", { to: "b" });
  assertEquals(asked.length, before + 1, "the forged grant was there and was not used");
  const grantIds = (await r.grants()).map((grant) => grant.id);
  assert(!grantIds.includes("forged") && !grantIds.includes("widened"));
  // Another router with another secret sharing the store: alice's grant does not verify.
  const other = router({
    policy: { ask: ["send"] },
    store,
    approvalSecret: "another secret, also long",
  });
  const there = await other.router.expose({ ...EVERYTHING, userId: "alice" });
  await there.call("send", { to: "c" });
  assertEquals(other.asked.length, 1);
});

Deno.test("edited arguments replace the call's; an edit that fails the schema or the policy runs nothing", async () => {
  const edit = (args: unknown) =>
    router({
      policy: { ask: ["send"], deny: ["send(to=*@rival.com)"] },
      answer: { approved: true, arguments: args as Record<string, unknown> },
    });
  const good = edit({ to: "team@example.com", body: "fixed typo" });
  const tools = await good.router.expose({ ...EVERYTHING, userId: "alice" });
  const ran = await tools.call("send", { to: "tema@example.com" });
  assertEquals(ran.text, "sent to team@example.com");
  assertEquals(good.runs, [{ tool: "send", args: { to: "team@example.com", body: "fixed typo" } }]);
  assertEquals(good.events.at(-1)?.argumentsEdited, true);

  for (const bad of [{ to: 42 }, { body: "no recipient" }, "not an object", { to: "a", cc: "b" }]) {
    const made = edit(bad);
    const set = await made.router.expose({ ...EVERYTHING, userId: "alice" });
    const result = await set.call("send", { to: "x@example.com" });
    assertEquals(result.code, "invalid_arguments", JSON.stringify(bad));
    assertEquals(made.runs, [], "nothing ran");
  }
  const widened = edit({ to: "boss@rival.com" });
  const set = await widened.router.expose({ ...EVERYTHING, userId: "alice" });
  const result = await set.call("send", { to: "x@example.com" });
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /edited arguments .* denied by policy rule "send\(to=\*@rival.com\)"/);
  assertEquals(widened.runs, [], "the edit reached the policy check and ran nothing");
});

Deno.test("a pending approval resumed with a scope and an edit makes a grant and runs the edit", async () => {
  const store = new MemoryStore();
  const first = new ToolRouter({
    functions: [
      defineTool({
        name: "send",
        description: "Sends",
        input: z.object({ to: z.string() }),
        run: ({ to }) => `sent to ${to}`,
      }),
    ],
    policy: { ask: ["send"] },
    approvalSecret: SECRET,
    store,
  });
  const tools = await first.expose({ functions: ["send"], userId: "alice" });
  const pending = await tools.call("send", { to: "a" });
  assertEquals(pending.code, "approval_required");
  const resumed = await first.resume(pending.approval!, {
    approved: true,
    scope: "always",
    arguments: { to: "b" },
  });
  assertEquals(resumed.text, "sent to b");
  assertEquals((await tools.call("send", { to: "c" })).text, "sent to c", "granted: no ask");
  const [grant] = await first.grants({ userId: "alice" });
  assertEquals([grant.scope, grant.approvalId], ["always", pending.approval!.id]);
  await assertRejects(async () => await first.revokeGrant(42 as unknown as string), TypeError);
});

Deno.test("a store whose grants cannot be read grants nothing: every call asks again", async () => {
  const store = new MemoryStore();
  const { router: r, runs, asked } = router({ policy: { ask: ["send"] }, store });
  const tools = await r.expose({ ...EVERYTHING, userId: "alice" });
  await tools.call("send", { to: "a@example.com" });
  assertEquals((await r.grants({ userId: "alice" })).length, 1);
  store.list = () => Promise.reject(new Error("the database is down"));
  const second = await tools.call("send", { to: "b@example.com" });
  assertEquals(second.isError, false, second.text);
  assertEquals([asked.length, runs.length], [2, 2]);
});
