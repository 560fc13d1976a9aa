import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import {
  type AuditRecord,
  defineTool,
  McpGateway,
  type McpTransport,
  ToolError,
  ToolRouter,
} from "../../mod.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

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
