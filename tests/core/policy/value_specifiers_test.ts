/**
 * Finding 16 (round 3): value rules read top-level strings only, so `deny send_email(to=*@evil.com)`
 * missed `to: ["x@evil.com"]` and an allow passed an array it covered only in part. Value
 * specifiers now read every string at any depth: a deny matches if any does, an allow must cover
 * all of them, and arguments nested too deep or too large to read fail closed.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, type Policy, ToolRouter } from "../../../mod.ts";
import { globToRegExp } from "../../../src/core/policy/_glob.ts";

const sent: unknown[] = [];
const sendEmail = defineTool({
  name: "send_email",
  description: "Sends an email to one or more addresses",
  input: z.object({
    to: z.union([z.string(), z.array(z.string()), z.record(z.string(), z.string())]),
    cc: z.array(z.object({ address: z.string() })).optional(),
    body: z.unknown().optional(),
  }),
  run: (args) => {
    sent.push(args.to);
    return "sent";
  },
});

async function outcome(policy: Policy, args: Record<string, unknown>): Promise<string> {
  // A host may let deeper arguments through than the policy reads (the default limit is 64).
  await using router = new ToolRouter({
    functions: [sendEmail],
    policy,
    argumentLimits: { maxDepth: 500 },
  });
  const tools = await router.expose({ functions: ["send_email"] });
  const result = await tools.call("send_email", args);
  if (result.code === "approval_required") return "ask";
  if (result.code === "permission_denied") return "deny";
  return result.isError ? `error ${result.code}` : "allow";
}

Deno.test("deny to=GLOB matches an address inside an array or object at any depth", async () => {
  const evil = globToRegExp("*@evil.com", "text");
  // Before, the rule read JSON text of the array: the attack passed the deny and was sent.
  assertEquals(evil.test(JSON.stringify(["x@evil.com"])), false);
  sent.length = 0;
  assertEquals(await outcome({}, { to: ["x@evil.com"] }), "allow");
  assertEquals(sent, [["x@evil.com"]], "without a rule, the tool really sends to the array");
  sent.length = 0;
  const deny: Policy = { deny: ["send_email(to=*@evil.com)"] };
  assertEquals(await outcome(deny, { to: ["ok@example.com", "x@evil.com"] }), "deny");
  assertEquals(await outcome(deny, { to: "x@evil.com" }), "deny");
  assertEquals(await outcome(deny, { to: ["ok@example.com"] }), "allow");
  // The bare form reads every string of every argument, nested ones too.
  const bare: Policy = { deny: ["send_email(*@evil.com)"] };
  assertEquals(
    await outcome(bare, { to: "a@example.com", cc: [{ address: "x@evil.com" }] }),
    "deny",
  );
  assertEquals(sent, [["ok@example.com"]]);
});

Deno.test("an allow must cover every string: an array covered only in part falls through", async () => {
  const allow: Policy = { allow: ["send_email(to=*@example.com)"], default: "ask" };
  sent.length = 0;
  assertEquals(await outcome(allow, { to: ["a@example.com", "x@evil.com"] }), "ask");
  assertEquals(await outcome(allow, { to: [] }), "ask", "nothing to cover is not covered");
  assertEquals(await outcome(allow, { to: ["a@example.com", "b@example.com"] }), "allow");
  assertEquals(await outcome(allow, { to: "a@example.com" }), "allow");
  const bare: Policy = { allow: ["send_email(*@example.com)"], default: "ask" };
  assertEquals(
    await outcome(bare, { to: "a@example.com", cc: [{ address: "x@evil.com" }] }),
    "ask",
  );
  assertEquals(sent, [["a@example.com", "b@example.com"], "a@example.com"]);
});

Deno.test("arguments nested deeper or larger than specifiers read fail closed", async () => {
  let deep: unknown = "x@example.com";
  for (let i = 0; i < 100; i++) deep = [deep];
  const wide = Array.from({ length: 20_000 }, () => "a@example.com");
  const deny: Policy = { deny: ["send_email(to=*@evil.com)"] };
  const allow: Policy = { allow: ["send_email(to=*@example.com)"], default: "ask" };
  for (const body of [deep, wide]) {
    assertEquals(await outcome(deny, { to: "a@example.com", body }), "allow", "other key");
    assertEquals(
      await outcome({ deny: ["send_email(body=*@evil.com)"] }, { to: "a", body }),
      "deny",
    );
    assertEquals(await outcome({ deny: ["send_email(*@evil.com)"] }, { to: "a", body }), "deny");
    assertEquals(
      await outcome({ allow: ["send_email(body=*@example.com)"], default: "ask" }, {
        to: "a",
        body,
      }),
      "ask",
    );
  }
  assertEquals(await outcome(allow, { to: ["a@example.com"], body: deep }), "allow");
});

Deno.test("KEY=GLOB reads numbers and booleans as text; the bare form reads strings only", async () => {
  assertEquals(
    await outcome({ deny: ["send_email(body=5)"] }, { to: "a", body: { n: [5] } }),
    "deny",
  );
  assertEquals(await outcome({ deny: ["send_email(body=true)"] }, { to: "a", body: true }), "deny");
  assertEquals(await outcome({ deny: ["send_email(5)"] }, { to: "a", body: 5 }), "allow");
});

Deno.test("a nested object's keys are read too: a record of addresses", async () => {
  const deny: Policy = { deny: ["send_email(to=*@evil.com)"] };
  assertEquals(await outcome(deny, { to: { "x@evil.com": "X" } }), "deny");
  const allow: Policy = { allow: ["send_email(to=*@example.com)"], default: "ask" };
  assertEquals(await outcome(allow, { to: { "x@evil.com": "a@example.com" } }), "ask");
  assertEquals(await outcome(allow, { to: { "b@example.com": "a@example.com" } }), "allow");
  // The arguments' own names are not read by the bare form.
  const bare: Policy = { allow: ["send_email(*@example.com)"], default: "ask" };
  assertEquals(await outcome(bare, { to: "a@example.com" }), "allow");
});
