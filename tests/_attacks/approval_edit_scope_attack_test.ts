// Attacks on the approval paths issue 27 folded together (`approvedCall` for the waiting handler
// and for a settled approval, `replacedArguments` returning instead of throwing, one
// `sign(kind)`/`verify(kind)`): an edit or a rewrite must never widen what runs or what lasts.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, type ToolCallEvent, ToolRouter, type ToolRouterOptions } from "../../mod.ts";
import { MemoryStore } from "../../src/core/stores.ts";
import { ApprovalSigner } from "../../src/core/policy/approval_signer.ts";

const SECRET = "a secret of at least sixteen bytes";

function setup(options: Partial<ToolRouterOptions> = {}) {
  const runs: Record<string, unknown>[] = [];
  const events: ToolCallEvent[] = [];
  const send = defineTool({
    name: "send",
    description: "Sends a message",
    input: z.object({ to: z.string(), body: z.string().optional() }),
    run: (args) => {
      runs.push(args);
      return `sent to ${args.to}`;
    },
  });
  const router = new ToolRouter({
    functions: [send],
    approvalSecret: SECRET,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { router, runs, events };
}

const POLICY = {
  ask: ["send"],
  neverSticky: ["send(to=*@bank.com)"],
  deny: ["send(to=*@rival.com)"],
};

Deno.test("an approver's edit to a neverSticky call with scope always runs once and grants nothing (waiting handler)", async () => {
  let asked = 0;
  const { router, runs, events } = setup({
    policy: POLICY,
    approve:
      () => (asked++, { approved: true, scope: "always", arguments: { to: "ceo@bank.com" } }),
  });
  const tools = await router.expose({ functions: ["send"], userId: "alice" });
  const first = await tools.call("send", { to: "friend@example.com" });
  assertEquals(first.text, "sent to ceo@bank.com", "the attack ran: the edit is what ran");
  assertEquals(events.at(-1)?.argumentsEdited, true);
  assertEquals(events.at(-1)?.grantId, undefined);
  assertEquals(await router.grants(), [], "an edit into a neverSticky call makes no grant");
  // The next call of the model's own arguments asks again.
  await tools.call("send", { to: "friend@example.com" });
  assertEquals(asked, 2);
  assertEquals(runs.length, 2);
});

Deno.test("a settled approval with an edit to a neverSticky call and scope always grants nothing", async () => {
  const store = new MemoryStore();
  const { router, runs, events } = setup({ policy: POLICY, store });
  const tools = await router.expose({ functions: ["send"], userId: "alice" });
  const pending = await tools.call("send", { to: "friend@example.com" });
  assertEquals(pending.code, "approval_required");
  const done = await tools.approve(pending.approval!, {
    scope: "always",
    arguments: { to: "ceo@bank.com" },
  });
  assertEquals(done.text, "sent to ceo@bank.com");
  assertEquals(runs, [{ to: "ceo@bank.com" }]);
  assertEquals(events.at(-1)?.argumentsEdited, true);
  assertEquals(await router.grants(), []);
  assertEquals(await store.list(["grants"]), [], "nothing written under grants");
});

Deno.test("a settled approval's edit into a denied call runs nothing, makes no grant and uses the approval up", async () => {
  const { router, runs } = setup({ policy: POLICY });
  const tools = await router.expose({ functions: ["send"], userId: "alice" });
  const pending = await tools.call("send", { to: "friend@example.com" });
  const denied = await tools.approve(pending.approval!, {
    scope: "always",
    arguments: { to: "boss@rival.com" },
  });
  assertEquals(denied.code, "permission_denied");
  assertMatch(denied.text, /edited arguments .* denied by policy rule/);
  assertEquals(runs, []);
  assertEquals(await router.grants(), []);
  // The refused edit used the approval: the same approval cannot now run the original call.
  const again = await tools.approve(pending.approval!);
  assertEquals(again.code, "permission_denied");
  assertEquals(runs, []);
});

Deno.test("a settled approval's edit that is not an object, too deep, or off-schema is refused as a result, never thrown", async () => {
  let deep: unknown = "x";
  for (let i = 0; i < 200; i++) deep = { a: deep };
  const edits: unknown[] = [["to", "x"], "x", 42, { to: "a", body: deep }, { to: 7 }];
  for (const edit of edits) {
    const { router, runs } = setup({ policy: POLICY });
    const tools = await router.expose({ functions: ["send"], userId: "alice" });
    const pending = await tools.call("send", { to: "friend@example.com" });
    const result = await tools.approve(pending.approval!, {
      scope: "session",
      arguments: edit as Record<string, unknown>,
    });
    assertEquals(result.isError, true, JSON.stringify(edit)?.slice(0, 40));
    assertEquals(result.code, "invalid_arguments", result.text);
    assertEquals(runs, []);
    assertEquals(await router.grants(), [], "a refused edit makes no grant");
  }
});

Deno.test("a hook's rewrite that is not an object or too deep is a result, and the hook cannot turn an ask into a run", async () => {
  let deep: unknown = "x";
  for (let i = 0; i < 200; i++) deep = { a: deep };
  for (const given of [["to"], "to", null, { to: "a", body: deep }]) {
    let called = 0;
    const { router, runs } = setup({
      hooks: [{ before: () => (called++, { args: given as Record<string, unknown> }) }],
    });
    const tools = await router.expose({ functions: ["send"], userId: "alice" });
    const result = await tools.call("send", { to: "friend@example.com" });
    assertEquals(called, 1, "the hook ran");
    assertEquals(result.code, "invalid_arguments", result.text);
    assertEquals(runs, []);
  }
  // A rewrite from an allowed call into a denied one runs nothing.
  const { router, runs } = setup({
    policy: POLICY,
    approve: () => ({ approved: true }),
    hooks: [{ before: () => ({ args: { to: "boss@rival.com" } }) }],
  });
  const tools = await router.expose({ functions: ["send"], userId: "alice" });
  const result = await tools.call("send", { to: "friend@example.com" });
  assertEquals(result.code, "permission_denied", result.text);
  assertEquals(runs, []);
});

Deno.test("one signer, two kinds: a grant's signature never verifies as an approval's, nor the reverse", async () => {
  const signer = new ApprovalSigner(SECRET);
  const record = { id: "x", tool: "send", userId: "alice", rule: "send" };
  const asGrant = { ...record, signature: await signer.sign("grant", record) };
  const asApproval = { ...record, signature: await signer.sign("approval", record) };
  assert(await signer.verify("grant", asGrant));
  assert(await signer.verify("approval", asApproval));
  assert(!(await signer.verify("approval", asGrant)), "a grant is never an approval");
  assert(!(await signer.verify("grant", asApproval)), "an approval is never a grant");
  const changed = { ...asGrant, userId: "bob" } as { signature?: unknown };
  assert(!(await signer.verify("grant", changed)));
  const unsigned = { ...record } as { signature?: unknown };
  assert(!(await signer.verify("grant", unsigned)), "no signature verifies nothing");
  assert(!(await signer.verify("grant", { ...record, signature: 42 })));
});
