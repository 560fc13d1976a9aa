import { assertEquals, assertMatch, assertRejects, assertStrictEquals } from "@std/assert";
import { z } from "zod";
import {
  mcpErrorToToolError,
  toolOutputOf,
  toolResultProblem,
} from "../../../src/core/mcp/mcp_call.ts";
import { callMcpTool } from "./_call_mcp_tool.ts";
import { Redactor } from "../../../src/core/mcp/gateway/calls/redactor.ts";
import { Client, ProtocolError } from "../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { McpErrorCode } from "../../../src/core/mcp/mcp_error_code.ts";
import { ToolError } from "../../../mod.ts";

Deno.test("mcpErrorToToolError() maps JSON-RPC errors to stable codes", () => {
  const code = (error: unknown) => mcpErrorToToolError(error, { toolName: "t" }).code;
  assertEquals(code(new ProtocolError(McpErrorCode.InvalidParams, "bad")), "invalid_arguments");
  assertEquals(code(new ProtocolError(McpErrorCode.RequestTimeout, "slow")), "timeout");
  assertEquals(
    code(new ProtocolError(McpErrorCode.ConnectionClosed, "gone")),
    "upstream_unavailable",
  );
  assertEquals(code(new ProtocolError(McpErrorCode.MethodNotFound, "no")), "unknown_tool");
  assertEquals(
    code(new ProtocolError(McpErrorCode.InvalidParams, "Tool t not found")),
    "unknown_tool",
  );
  assertEquals(
    code(new ProtocolError(McpErrorCode.InvalidParams, "Tool x not found")),
    "invalid_arguments",
  );
  assertEquals(code(new ProtocolError(McpErrorCode.InternalError, "oops")), "tool_error");
  assertEquals(code(new TypeError("fetch failed")), "upstream_unavailable");
  assertEquals(code(new DOMException("stop", "AbortError")), "aborted");
  const reason = new ToolError("timeout", "deadline");
  assertEquals(
    mcpErrorToToolError(new Error("x"), { toolName: "t", signal: AbortSignal.abort(reason) }),
    reason,
  );
});

Deno.test("callMcpTool() returns text, truncates it, and throws tool_error for error results", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "big",
    { description: "d" },
    () => ({ content: [{ type: "text", text: "x".repeat(1000) }] }),
  );
  server.registerTool(
    "bad",
    { description: "d" },
    () => ({ isError: true, content: [{ type: "text", text: "nope" }] }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(a);
  const context = { signal: new AbortController().signal };
  try {
    const text = await callMcpTool(client, { toolName: "big", args: {}, context }, {
      maxResultChars: 100,
    });
    assertEquals(text.length <= 100 && text.includes("characters truncated"), true);
    const error = await assertRejects(
      () => callMcpTool(client, { toolName: "bad", args: {}, context }),
      ToolError,
    );
    assertEquals([error.code, error.message], ["tool_error", "nope"]);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("callMcpTool() reports a tool the server does not know or disabled as unknown_tool", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("off", {}, () => ({ content: [] })).disable();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(a);
  const context = { signal: new AbortController().signal };
  const failure = async (name: string, args: Record<string, unknown>) => {
    const error = await assertRejects(
      () => callMcpTool(client, { toolName: name, args, context }),
      ToolError,
    );
    return [error.code, error.message];
  };
  try {
    assertEquals(await failure("gone", {}), [
      "unknown_tool",
      'The server does not know tool "gone"',
    ]);
    assertEquals(await failure("off", {}), [
      "unknown_tool",
      'Tool "off" is disabled on its server',
    ]);
    const [code, message] = await failure("echo", { text: 1 });
    assertEquals(code, "invalid_arguments", "real input validation errors stay");
    assertMatch(message, /^Invalid arguments for tool echo: /);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("callMcpTool() reports a result that breaks the tool's own output schema as tool_error", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "count",
    { outputSchema: z.object({ n: z.number() }) },
    // deno-lint-ignore no-explicit-any
    () => ({ content: [{ type: "text", text: "x" }], structuredContent: { n: "many" } as any }),
  );
  server.registerTool(
    "bare",
    { outputSchema: z.object({ n: z.number() }) },
    () => ({ content: [] }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(a);
  const context = { signal: new AbortController().signal };
  try {
    for (const name of ["count", "bare"]) {
      const error = await assertRejects(
        () => callMcpTool(client, { toolName: name, args: {}, context }),
        ToolError,
      );
      assertEquals(error.code, "tool_error", name);
      assertMatch(
        error.message,
        new RegExp(`^Tool "${name}" returned a result that does not match`),
      );
    }
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("toolOutputOf() redacts before it bounds, and passes content without secrets on as it is", () => {
  const redactor = new Redactor({
    url: "https://x.example/mcp",
    headers: { "x-key": "k".repeat(64) },
  });
  const redact = (result: Parameters<typeof redactor.result>[0]) => redactor.result(result);
  const clean = { content: [{ type: "text", text: "fine" }], structuredContent: { n: 1 } };
  const output = toolOutputOf(clean, "t", { redact, maxResultChars: 100 });
  assertStrictEquals(output.content, clean.content);
  assertStrictEquals(output.structuredContent, clean.structuredContent);
  // Bounded first, the text's head would keep the key's first characters.
  const leaking = { content: [{ type: "text", text: "k".repeat(64) + "x".repeat(500) }] };
  const text = (toolOutputOf(leaking, "t", { redact, maxResultChars: 60 }).content[0] as {
    text: string;
  }).text;
  assertEquals(text.startsWith("[redacted]x"), true, text);
  assertEquals(text.includes("kkkkkkkk"), false, text);
});

Deno.test("toolResultProblem() accepts every kind of block the MCP schema has, with optional fields", () => {
  const valid = [
    {},
    { content: [] },
    { content: [{ type: "text", text: "a", annotations: { priority: 1 } }], isError: false },
    { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
    { content: [{ type: "audio", data: "", mimeType: "audio/wav" }] },
    { content: [{ type: "resource", resource: { uri: "file:///a", text: "t" } }] },
    { content: [{ type: "resource", resource: { uri: "file:///a", blob: "AAAA" } }] },
    { content: [{ type: "resource_link", uri: "file:///a", name: "a", mimeType: "text/plain" }] },
    { content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 }, isError: true },
  ];
  for (const result of valid) assertEquals(toolResultProblem(result), undefined);
});

Deno.test("toolResultProblem() names what is wrong with a result that is not a tool result", () => {
  const cases: [unknown, string][] = [
    [null, "it is not an object"],
    [[1], "it is not an object"],
    [{ content: "text" }, '"content" is not a list'],
    [{ content: [1] }, "content[0] is not an object"],
    [
      { content: [{ type: "text", text: "a" }, { type: "bogus" }] },
      'content[1] has an unknown type "bogus"',
    ],
    [{ content: [{ text: "a" }] }, "content[0] has an unknown type undefined"],
    [{ content: [{ type: "toString" }] }, 'content[0] has an unknown type "toString"'],
    [{ content: [{ type: "x".repeat(50) }] }, "content[0] has an unknown type (52 characters)"],
    [{ content: [{ type: "text" }] }, 'content[0] is a "text" block without a string "text"'],
    [
      { content: [{ type: "image", data: 5, mimeType: "image/png" }] },
      'content[0] is a "image" block without a string "data"',
    ],
    [
      { content: [{ type: "resource", resource: { uri: "a" } }] },
      'content[0] is a "resource" block whose resource has neither a string "text" nor "blob"',
    ],
    [
      { content: [{ type: "resource", resource: { text: "a" } }] },
      'content[0] is a "resource" block whose resource has no string "uri"',
    ],
    [
      { content: [{ type: "resource" }] },
      'content[0] is a "resource" block without a "resource" object',
    ],
    [
      { content: [{ type: "resource_link", uri: "a" }] },
      'content[0] is a "resource_link" block without a string "name"',
    ],
    [{ content: [], structuredContent: [1] }, '"structuredContent" is not an object'],
    [{ content: [], isError: "yes" }, '"isError" is not true or false'],
  ];
  for (const [result, problem] of cases) assertEquals(toolResultProblem(result), problem);
});
