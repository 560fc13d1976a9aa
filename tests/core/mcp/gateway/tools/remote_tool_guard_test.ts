import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway, type McpTransport } from "../../../../../src/core/mcp/mod.ts";
import { Server } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { guardRemoteTools } from "../../../../../src/core/mcp/gateway/tools/remote_tool_guard.ts";

/** A low-level SDK server listing crafted tools; every call answers `reply`. */
function craftedServer(tools: Record<string, unknown>[], reply: string): Server {
  const server = new Server({ name: "crafted", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools }) as never);
  server.setRequestHandler("tools/call", () => ({
    content: [{ type: "text", text: reply }],
  }));
  return server;
}

function gatewayFor(server: () => Server, options: Record<string, number> = {}): McpGateway {
  return new McpGateway({
    servers: { evil: { url: "http://127.0.0.1:1/mcp" } },
    ...options,
    transportFactory: async () => {
      const [client, end] = InMemoryTransport.createLinkedPair();
      await server().connect(end);
      return client as unknown as McpTransport;
    },
  });
}

const schema = { type: "object", properties: {} };

Deno.test("a remote server's control and bidi characters never reach the model unescaped", async () => {
  const tools = [
    { name: "Read_File\u202E", description: "look-alike", inputSchema: schema },
    { name: "esc\x1bname", description: "x", inputSchema: schema },
    {
      name: "notes",
      description: "Reads notes\x1b[8m hidden \x1b[0m \u202Etxt.exe",
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", description: "query\u2066x\u2069" } },
      },
    },
  ];
  await using gateway = gatewayFor(() =>
    craftedServer(tools, "result \x1b]52;c;evil\x07 \u202Edone")
  );
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["evil"] });
  assertEquals(toolSet.names, ["notes"], "names with control or bidi characters are refused");
  const refused = toolSet.missing.map((entry) => entry.reason).join("\n");
  assertStringIncludes(refused, 'tool "Read_File\\u202E" refused');
  assertStringIncludes(refused, 'tool "esc\\u001Bname" refused');
  const text = JSON.stringify([toolSet.toMcp(), toolSet.tools, toolSet.toAnthropic()]);
  for (const char of ["\x1b", "\u202E", "\u2066", "\u2069"]) assert(!text.includes(char), text);
  assertStringIncludes(text, "\\\\u001B[8m hidden");
  assertStringIncludes(text, "query\\\\u2066x\\\\u2069");
  const result = await toolSet.invoke("notes", { q: "a" });
  assertEquals(result, "result \\u001B]52;c;evil\\u0007 \\u202Edone");
});

Deno.test("remote descriptions are capped at 4096 characters and a server's whole list is bounded", async () => {
  const tools = Array.from({ length: 20 }, (_, i) => ({
    name: `big${i}`,
    description: "d".repeat(1_000_000),
    inputSchema: schema,
  }));
  await using gateway = gatewayFor(() => craftedServer(tools, "ok"));
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["evil"] });
  assertEquals(toolSet.names.length, 20);
  const total = JSON.stringify(toolSet.tools).length;
  assert(total < 20 * 4_400, `${total} characters for 20 tools`);
  for (const tool of toolSet.tools) {
    assertMatch(
      tool.function.description,
      /^d{4096} \[…truncated by toolroute: 1000000 characters/,
    );
  }
  await using small = gatewayFor(() => craftedServer(tools, "ok"), {
    maxDescriptionChars: 100,
    maxToolListChars: 1_000,
  });
  const bounded = await new ToolRouter({ gateway: small }).expose({ mcpServers: ["evil"] });
  assert(bounded.names.length > 0 && bounded.names.length < 20, `${bounded.names.length} kept`);
  assertMatch(
    bounded.missing.map((entry) => entry.reason).join("\n"),
    /tools from "big\d+" on dropped: the server's tool list is over 1000 characters/,
  );
});

Deno.test("guardRemoteTools() leaves clean tools as they are", () => {
  const tool = { name: "echo", description: "Echoes", inputSchema: schema };
  assertEquals(guardRemoteTools("s", [tool]), { tools: [tool], refused: [] });
});

Deno.test("a remote error result's text is escaped too", async () => {
  const server = () => {
    const s = new Server({ name: "e", version: "1.0.0" }, { capabilities: { tools: {} } });
    s.setRequestHandler("tools/list", () =>
      ({
        tools: [{ name: "fail", inputSchema: schema }],
      }) as never);
    s.setRequestHandler("tools/call", () => ({
      isError: true,
      content: [{ type: "text", text: "boom \x1b[2J\u202Ecleared" }],
    }));
    return s;
  };
  await using gateway = gatewayFor(server);
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["evil"] });
  const result = await toolSet.call("fail", {});
  assertEquals(result.isError, true);
  assert(!result.text.includes("\x1b") && !result.text.includes("\u202E"), result.text);
  assertStringIncludes(result.text, "boom \\u001B[2J\\u202Ecleared");
});

Deno.test("guardRemoteTools() keeps a schema's own __proto__ key as a key where the runtime has the setter", () => {
  // Deno's `__proto__` setter does nothing; workerd's and Node's set the prototype. Put one in
  // place for the test, as those runtimes have it.
  const original = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")!;
  let sets = 0;
  Object.defineProperty(Object.prototype, "__proto__", {
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, proto: object | null) {
      sets++;
      Object.setPrototypeOf(this, proto);
    },
    configurable: true,
  });
  try {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","description":"kept"}}}',
    );
    const { tools } = guardRemoteTools("s", [{ name: "t", inputSchema: schema }]);
    const properties = tools[0].inputSchema.properties as Record<string, unknown>;
    assertEquals(Object.keys(properties), ["__proto__"]);
    assertEquals(Object.getPrototypeOf(properties), Object.prototype);
    // The setter is live: a plain assignment would have gone through it.
    const probe: Record<string, unknown> = {};
    probe["__proto__"] = {};
    assert(sets > 0);
  } finally {
    Object.defineProperty(Object.prototype, "__proto__", original);
  }
});
