import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolError, ToolRouter } from "../../mod.ts";
import type { AuditRecord } from "../../src/core/stores.ts";
import { McpGateway, type McpTransport } from "../../src/core/mcp/mod.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { EVERYTHING, policyRouter, ran } from "./policy/_policy_fixture.ts";

function tools() {
  return [
    defineTool({
      name: "echo",
      description: "Echo",
      input: z.object({ text: z.string(), n: z.number().optional() }),
      run: ({ text }) => text,
    }),
    defineTool({
      name: "guarded",
      description: "Refuses",
      input: z.object({}),
      run: () => {
        throw new ToolError("permission_denied", "Not for you");
      },
    }),
    defineTool({
      name: "broken",
      description: "Fails",
      input: z.object({}),
      run: () => {
        throw new Error("disk on fire");
      },
    }),
  ];
}

Deno.test("audit: one record per call, for allowed, denied and failed calls, written before the call returns", async () => {
  const records: AuditRecord[] = [];
  const router = new ToolRouter({
    functions: tools(),
    audit: { write: (r) => void records.push(r) },
  });
  const toolSet = await router.expose({ functions: ["echo", "guarded", "broken"], userId: "ada" });
  await toolSet.call("echo", '{"text":"hi","n":1}');
  assertEquals(records.length, 1);
  await toolSet.call("guarded", "{}");
  await toolSet.call("broken", "{}");
  await toolSet.call("rm_rf", "{}");
  await toolSet.call("echo", "{not json");
  assertEquals(records.map((r) => [r.tool, r.outcome, r.source]), [
    ["echo", "ok", "function"],
    ["guarded", "permission_denied", "function"],
    ["broken", "tool_error", "function"],
    ["rm_rf", "unknown_tool", undefined],
    ["echo", "invalid_arguments", "function"],
  ]);
  for (const record of records) {
    assertEquals(record.userId, "ada");
    assertMatch(record.argumentsDigest, /^sha256-[0-9a-f]{64}$/);
    assertMatch(record.time, /^\d{4}-\d\d-\d\dT/);
    assert(record.durationMs >= 0);
    assertEquals(record.arguments, undefined);
    assertEquals(record.traceId, undefined);
  }
});

Deno.test("audit: the digest ignores key order; arguments appear only with auditArguments", async () => {
  const records: AuditRecord[] = [];
  const sink = { write: (r: AuditRecord) => void records.push(r) };
  const plain = await new ToolRouter({ functions: tools(), audit: sink }).expose({
    functions: ["echo"],
  });
  await plain.call("echo", '{"text":"hi","n":1}');
  await plain.call("echo", { n: 1, text: "hi" });
  await plain.call("echo", { n: 2, text: "hi" });
  assertEquals(records[0].argumentsDigest, records[1].argumentsDigest);
  assert(records[0].argumentsDigest !== records[2].argumentsDigest);
  const full = await new ToolRouter({ functions: tools(), audit: sink, auditArguments: true })
    .expose({ functions: ["echo"] });
  await full.call("echo", '{"text":"secret"}');
  assertEquals(records[3].arguments, { text: "secret" });
});

Deno.test("audit: a sink that throws or rejects never changes the call's result", async () => {
  let tried = 0;
  for (
    const write of [
      () => {
        tried++;
        throw new Error("sink down");
      },
      () => {
        tried++;
        return Promise.reject(new Error("sink down"));
      },
    ]
  ) {
    const toolSet = await new ToolRouter({ functions: tools(), audit: { write } })
      .expose({ functions: ["echo"] });
    assertEquals(await toolSet.invoke("echo", '{"text":"ok"}'), "ok");
  }
  assertEquals(tried, 2);
});

Deno.test("audit: a remote MCP call names its server and origin", async () => {
  const records: AuditRecord[] = [];
  const gateway = new McpGateway({
    servers: { docs: { url: "http://127.0.0.1:1/mcp" } },
    transportFactory: async () => {
      const server = new McpServer({ name: "docs", version: "1.0.0" });
      server.registerTool("lookup", { inputSchema: z.object({}) }, () => ({
        content: [{ type: "text", text: "found" }],
      }));
      const [client, side] = InMemoryTransport.createLinkedPair();
      await server.connect(side);
      return client as unknown as McpTransport;
    },
  });
  try {
    const router = new ToolRouter({ gateway, audit: { write: (r) => void records.push(r) } });
    const toolSet = await router.expose({ mcpServers: ["docs"] });
    assertEquals(await toolSet.invoke("lookup", "{}"), "found");
    assertEquals(records[0].server, "docs");
    assertEquals(records[0].origin, "docs/lookup");
    assertEquals(records[0].source, "global_mcp");
  } finally {
    await gateway.close();
  }
});

Deno.test("audit: a sink with writeLater builds text-argument records later, the same as write; object arguments are built at once", async () => {
  const eager: AuditRecord[] = [];
  const later: (() => AuditRecord)[] = [];
  const lazy: AuditRecord[] = [];
  const sink = {
    write: (r: AuditRecord) => void lazy.push(r),
    writeLater: (build: () => AuditRecord) => void later.push(build),
  };
  const both = [
    new ToolRouter({ functions: tools(), audit: { write: (r) => void eager.push(r) } }),
    new ToolRouter({ functions: tools(), audit: sink }),
  ];
  for (const router of both) {
    const toolSet = await router.expose({ functions: ["echo", "broken"], userId: "ada" });
    await toolSet.call("echo", '{"text":"hi","n":1}');
    await toolSet.call("broken", "{}");
  }
  assertEquals(later.length, 2);
  assertEquals(lazy.length, 0);
  const built = later.map((build) => build());
  const stable = (r: AuditRecord) => ({ ...r, time: "", durationMs: 0 });
  assertEquals(built.map(stable), eager.map(stable));
  // An object can change after the call: its record is built before the call returns.
  const args = { text: "hi" };
  const toolSet = await both[1].expose({ functions: ["echo"] });
  await toolSet.call("echo", args);
  args.text = "changed";
  assertEquals(lazy.length, 1);
  await (await both[0].expose({ functions: ["echo"] })).call("echo", '{"text":"hi"}');
  assertEquals(lazy[0].argumentsDigest, eager[2].argumentsDigest);
});

Deno.test("audit: every decision leaves a record saying which, the rule, user and tool, never the arguments", async () => {
  const records: AuditRecord[] = [];
  const policy = { deny: ["deploy(env=prod)"], ask: ["deploy(env=staging)", "send_email"] };
  let answer = true;
  const router = policyRouter({
    policy,
    audit: { write: (record) => void records.push(record) },
  });
  const toolSet = await router.expose({ ...EVERYTHING, userId: "ada" });
  ran.length = 0;
  const secret = "sk-live-4242";
  const calls: [string, string, boolean?][] = [
    ["deploy", `{"env":"dev","target":"${secret}"}`], // allow
    ["deploy", '{"env":"prod"}'], // deny
    ["send_email", `{"to":"${secret}@x.org"}`], // ask: pending
    ["rm_rf", "{}"], // unknown tool
    ["deploy", '{"env":'], // invalid arguments
  ];
  for (const [name, args] of calls) await toolSet.call(name, args);
  const pending = (await toolSet.call("send_email", '{"to":"b@x.org"}')).approval!;
  await toolSet.approve(pending); // ask, then approve
  const other = (await toolSet.call("send_email", '{"to":"c@x.org"}')).approval!;
  await toolSet.reject(other, "no"); // ask, then reject
  // With a handler: the ask is recorded when asked, the answer when it comes.
  const asking = await router.expose({ ...EVERYTHING, userId: "ada" });
  await asking.call("deploy", '{"env":"staging"}', { approve: () => answer });
  answer = false;
  await asking.call("deploy", '{"env":"staging"}', { approve: () => answer });
  assertEquals(
    records.map((r) => [r.decision, r.tool, r.rule, r.outcome, r.approval]),
    [
      ["allow", "deploy", "default", "ok", undefined],
      ["deny", "deploy", "deploy(env=prod)", "permission_denied", undefined],
      ["ask", "send_email", "send_email", "approval_required", "pending"],
      ["unknown_tool", "rm_rf", undefined, "unknown_tool", undefined],
      ["invalid_arguments", "deploy", undefined, "invalid_arguments", undefined],
      ["ask", "send_email", "send_email", "approval_required", "pending"],
      ["approve", "send_email", "send_email", "ok", "approved"],
      ["ask", "send_email", "send_email", "approval_required", "pending"],
      ["reject", "send_email", "send_email", "permission_denied", "rejected"],
      ["ask", "deploy", "deploy(env=staging)", "approval_required", "pending"],
      ["approve", "deploy", "deploy(env=staging)", "ok", "approved"],
      ["ask", "deploy", "deploy(env=staging)", "approval_required", "pending"],
      ["reject", "deploy", "deploy(env=staging)", "permission_denied", "rejected"],
    ],
  );
  assert(records.every((r) => r.userId === "ada"));
  // The ask and its answer share the approval's id.
  assertEquals(records[5].approvalId, pending.id);
  assertEquals(records[6].approvalId, pending.id);
  assertEquals(records[8].approvalId, other.id);
  assertEquals(records[9].approvalId, records[10].approvalId);
  const text = JSON.stringify(records);
  assert(!text.includes(secret), "a record carries an argument's value");
  // The calls really were made: the allowed and the two approved ones ran, nothing else.
  assertEquals(ran.map((r) => r.tool), ["deploy", "send_email", "deploy"]);
});

Deno.test("audit: a forged or reused approval is recorded as a reject of an invalid approval", async () => {
  const records: AuditRecord[] = [];
  const router = policyRouter({
    policy: { ask: ["send_email"] },
    audit: { write: (record) => void records.push(record) },
  });
  const toolSet = await router.expose(EVERYTHING);
  const approval = (await toolSet.call("send_email", '{"to":"a@x.org"}')).approval!;
  await toolSet.approve({ ...approval, arguments: { to: "evil@x.org" } });
  await toolSet.approve(approval);
  await toolSet.approve(approval);
  assertEquals(records.map((r) => [r.decision, r.approval, r.outcome]), [
    ["ask", "pending", "approval_required"],
    ["reject", "invalid", "permission_denied"],
    ["approve", "approved", "ok"],
    ["reject", "invalid", "permission_denied"],
  ]);
});
