import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import type { PendingApproval, ToolCallEvent } from "../../../mod.ts";
import { MemoryStore } from "../../../src/core/stores.ts";
import { EVERYTHING, policyRouter, ran } from "./_policy_fixture.ts";

const POLICY = { ask: ["deploy", "bash(git push*)"] };

async function pending(options: Parameters<typeof policyRouter>[0] = {}) {
  const router = policyRouter({ policy: POLICY, ...options });
  const toolSet = await router.expose({ ...EVERYTHING, userId: "alice" });
  ran.length = 0;
  const result = await toolSet.call("deploy", '{"env":"prod"}');
  assertEquals(result.code, "approval_required");
  assertEquals(ran, [], "an ask runs nothing");
  return { router, toolSet, result, approval: result.approval! };
}

Deno.test("an ask without a handler returns approval_required with a plain-JSON PendingApproval", async () => {
  const { result, approval } = await pending();
  assertMatch(result.text, /needs a person's approval \(policy rule "deploy"/);
  assertEquals(JSON.parse(JSON.stringify(approval)), approval);
  assertEquals([approval.tool, approval.arguments, approval.userId, approval.rule], [
    "deploy",
    { env: "prod" },
    "alice",
    "deploy",
  ]);
  const lifetime = Date.parse(approval.expiresAt) - Date.parse(approval.requestedAt);
  assertEquals(lifetime, 15 * 60_000);
  assertEquals(approval.selection.functions, EVERYTHING.functions);
});

Deno.test("approve() runs the call once, by object or by id; a second use runs nothing", async () => {
  const { toolSet, approval } = await pending();
  const done = await toolSet.approve(approval.id);
  assertEquals([done.isError, done.text], [false, "deploy ran"]);
  assertEquals(ran, [{ tool: "deploy", args: { env: "prod" } }]);
  const again = await toolSet.approve(approval);
  assertEquals(again.code, "permission_denied");
  assertMatch(again.text, /already used/);
  assertEquals(ran.length, 1);
});

Deno.test("reject() runs nothing and tells the model the user declined, with the reason", async () => {
  const { toolSet, approval } = await pending();
  const result = await toolSet.reject(approval, "not before the release");
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /user declined the call to "deploy": not before the release/);
  assertEquals(ran, []);
  assertEquals((await toolSet.approve(approval)).code, "permission_denied", "rejected is used up");
  assertEquals(ran, []);
});

Deno.test("a tampered approval runs nothing: arguments, tool, user, expiry or signature changed", async () => {
  const { toolSet, approval } = await pending();
  const tampered: PendingApproval[] = [
    { ...approval, arguments: { env: "prod", target: "everything" } },
    { ...approval, tool: "delete_user" },
    { ...approval, userId: "mallory" },
    { ...approval, expiresAt: new Date(Date.now() + 864e5).toISOString() },
    { ...approval, rule: "default" },
    { ...approval, signature: approval.signature.replace(/^./, (c) => c === "A" ? "B" : "A") },
    { ...approval, signature: "short" },
    { ...approval, arguments: null as unknown as Record<string, unknown> },
  ];
  for (const forged of tampered) {
    const result = await toolSet.approve(forged);
    assertEquals(result.code, "permission_denied");
    assertMatch(result.text, /changed after it was issued/);
  }
  assertEquals(ran, [], "no forged approval ran");
  assertEquals((await toolSet.approve(approval)).isError, false, "the genuine one still works");
});

Deno.test("an approval from another router (another secret) runs nothing", async () => {
  const { approval } = await pending();
  const other = policyRouter({ policy: POLICY });
  const result = await other.resume(approval, { approved: true });
  assertEquals(result.code, "permission_denied");
  assertEquals(ran, []);
});

Deno.test("an expired approval runs nothing", async () => {
  const { toolSet, approval } = await pending({ approvalTtlMs: 30 });
  await new Promise((resolve) => setTimeout(resolve, 60));
  const result = await toolSet.approve(approval);
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /expired/);
  assertEquals(ran, []);
});

Deno.test("an unknown id runs nothing", async () => {
  const { toolSet } = await pending();
  const result = await toolSet.approve("no-such-id");
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /unknown to this tool set/);
});

Deno.test("router.resume() settles an approval in a fresh router with the same secret and store", async () => {
  const secret = "a shared secret of enough bytes";
  const store = new MemoryStore();
  const { approval } = await pending({ approvalSecret: secret, store });
  const stored = JSON.stringify(approval); // as a host would keep it between processes
  const events: ToolCallEvent[] = [];
  const fresh = policyRouter({
    policy: POLICY,
    approvalSecret: secret,
    store,
    onEvent: (event) => events.push(event),
  });
  const result = await fresh.resume(JSON.parse(stored), { approved: true });
  assertEquals([result.isError, result.text], [false, "deploy ran"]);
  assertEquals(ran, [{ tool: "deploy", args: { env: "prod" } }]);
  assertEquals(events.map((e) => [e.decision, e.rule, e.approval, e.userId]), [
    ["ask", "deploy", "approved", "alice"],
  ]);
  // A third router sharing the store sees it used.
  const third = policyRouter({ policy: POLICY, approvalSecret: secret, store });
  assertMatch((await third.resume(JSON.parse(stored), { approved: true })).text, /already used/);
  assertEquals(ran.length, 1);
});

Deno.test("router.resume() with a rejection returns the declined text; a now-denied tool does not run", async () => {
  const secret = "a shared secret of enough bytes";
  const { approval } = await pending({ approvalSecret: secret });
  const fresh = policyRouter({ policy: POLICY, approvalSecret: secret });
  const declined = await fresh.resume(approval, { approved: false, reason: "no" });
  assertMatch(declined.text, /user declined the call to "deploy": no/);
  const second = await pending({ approvalSecret: secret });
  const stricter = policyRouter({ policy: { deny: ["deploy(prod)"] }, approvalSecret: secret });
  const refused = await stricter.resume(second.approval, { approved: true });
  assertEquals(refused.code, "permission_denied");
  assertMatch(refused.text, /now denied by policy rule "deploy\(prod\)"/);
  assertEquals(ran, []);
  const hidden = policyRouter({ policy: { deny: ["deploy"] }, approvalSecret: secret });
  assertMatch((await hidden.resume(second.approval, { approved: true })).text, /no longer exposed/);
  assertEquals(ran, []);
  assertThrows(
    () => fresh.resume(approval, undefined as unknown as { approved: boolean }),
    TypeError,
    "approved",
  );
});

Deno.test("an approval of one user does not run in another user's tool set", async () => {
  const { router, approval } = await pending();
  const bob = await router.expose({ ...EVERYTHING, userId: "bob" });
  const result = await bob.approve(approval);
  assertMatch(result.text, /another user/);
  assertEquals(ran, []);
});

Deno.test("with an approve handler the call waits for it: approved runs, rejected does not", async () => {
  const asked: string[] = [];
  const router = policyRouter({
    policy: POLICY,
    approve: (request) => {
      asked.push(`${request.tool} ${request.summary} ${request.rule}`);
      return request.arguments.env === "dev" ? true : { approved: false, reason: "prod is frozen" };
    },
  });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  assertEquals((await toolSet.call("deploy", { env: "dev" })).text, "deploy ran");
  const no = await toolSet.call("deploy", { env: "prod" });
  assertEquals(no.code, "permission_denied");
  assertMatch(no.text, /declined the call to "deploy": prod is frozen/);
  assertEquals(ran, [{ tool: "deploy", args: { env: "dev" } }]);
  assertEquals(asked, ["deploy env: dev deploy", "deploy env: prod deploy"]);
  const push = await toolSet.call("bash", { command: "git push" });
  assertEquals(push.code, "permission_denied", "bash(git push*) asks too");
});

Deno.test("a call's deadline and abort signal apply while it waits for approval", async () => {
  let signalled = 0;
  // Called once the handler listens: the abort comes while it waits, however slow the machine.
  let asked = () => {};
  const router = policyRouter({
    policy: POLICY,
    approve: (request) =>
      new Promise<boolean>((resolve) => {
        request.signal.addEventListener("abort", () => {
          signalled++;
          resolve(true);
        });
        asked();
      }),
  });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  // Long enough that the handler is asked before it passes, also on a loaded machine (30 ms
  // was not, under the test parts running together).
  const timedOut = await toolSet.call("deploy", { env: "x" }, { timeoutMs: 500 });
  assertEquals(timedOut.code, "timeout");
  const controller = new AbortController();
  asked = () => setTimeout(() => controller.abort(), 20);
  const aborted = await toolSet.call("deploy", { env: "x" }, { signal: controller.signal });
  assertEquals(aborted.code, "aborted");
  assertEquals(signalled, 2, "the handler saw both ends");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(ran, [], "the late approval ran nothing");
});

Deno.test("a throwing handler counts as a rejection that says so", async () => {
  const router = policyRouter({
    policy: POLICY,
    approve: () => {
      throw new Error("UI offline");
    },
  });
  const toolSet = await router.expose(EVERYTHING);
  const result = await toolSet.call("deploy", { env: "x" });
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /UI offline/);
});

Deno.test("router options are checked: a short secret, a bad TTL", () => {
  assertThrows(() => policyRouter({ approvalSecret: "short" }), TypeError, "16 bytes");
  assertThrows(() => policyRouter({ approvalTtlMs: -1 }), RangeError, "approvalTtlMs");
});

Deno.test("approve() on a tool set without any policy runs nothing", async () => {
  const { approval } = await pending();
  const plain = await policyRouter().expose(EVERYTHING);
  assertEquals((await plain.approve(approval)).code, "permission_denied");
  await assertRejects(async () => {
    await plain.callAll("nope" as unknown as []);
  }, TypeError);
  assert(ran.length === 0);
});

Deno.test("five concurrent approvals of one call run it exactly once", async () => {
  const { toolSet, approval } = await pending();
  const results = await Promise.all(
    Array.from(
      { length: 5 },
      (_, i) => i % 2 ? toolSet.approve(approval) : toolSet.approve(approval.id),
    ),
  );
  assertEquals(results.filter((result) => !result.isError).length, 1);
  assertEquals(
    results.filter((result) => /already used|unknown to this tool set/.test(result.text)).length,
    4,
  );
  assertEquals(ran.length, 1, "the call ran once");
});

Deno.test("the summary of an apply_patch ask shows the whole patch, its line breaks marked", async () => {
  const router = policyRouter({ policy: { ask: ["apply_patch"] } });
  const toolSet = await router.expose(EVERYTHING);
  const patch =
    "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.ts\n@@\n-a\n+b\n*** End Patch";
  const result = await toolSet.call("apply_patch", { patch });
  assertEquals(
    result.approval?.summary,
    "patch: *** Begin Patch\\n\n*** Add File: a.txt\\n\n+x\\n\n*** Update File: src/b.ts\\n\n@@\\n\n-a\\n\n+b\\n\n*** End Patch",
  );
  assertEquals(result.approval?.shown, result.approval?.summary);
});

Deno.test("a store that fails while recording the use runs nothing and says so", async () => {
  let attempts = 0;
  const store = new MemoryStore();
  store.setIfAbsent = () => {
    attempts++;
    return Promise.reject(new Error("store offline"));
  };
  const { toolSet, approval } = await pending({ store });
  const result = await toolSet.approve(approval);
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /could not be recorded as used \(store offline\)/);
  assertEquals([attempts, ran.length], [1, 0]);
});

Deno.test("a router's approve option must be a function", () => {
  assertThrows(
    () => policyRouter({ approve: "yes" as unknown as () => boolean }),
    TypeError,
    '"approve" must be a function',
  );
});

Deno.test("an ask with arguments that are not JSON is invalid_arguments, not a pending approval", async () => {
  const router = policyRouter({ policy: { ask: ["deploy"] } });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  const result = await toolSet.call("deploy", "{oops");
  assertEquals(result.code, "invalid_arguments");
  assertEquals(result.approval, undefined);
  assertEquals(ran, []);
});
