/**
 * A hostile MCP server (`@modelcontextprotocol/sdk` 1.x, its low-level `Server`, which lists
 * tools with raw JSON Schemas) names its parameters' types after `Object.prototype` members
 * (`"valueOf"`, `"__proto__"`, `"hasOwnProperty"`, `"toString"`). When a hook rewrites a call's
 * arguments, or an approver edits them, toolroute checks the new arguments against the tool's
 * schema (`replacedArguments`, which issue 27 made return its refusal instead of throwing). The
 * check looked type names up on a plain object, so an inherited member was taken for a type and
 * called: `"hasOwnProperty"` refused every value (an edit or rewrite of that tool could never run)
 * and `"valueOf"`, `"toString"`, `"constructor"` accepted every value; `"__proto__"` is gone in
 * Deno. Not a hole (the server only makes its own tool's check odd, and validates its arguments
 * itself), but a check that reads what it was not given: only own type names count.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ToolRouter } from "../../mod.ts";
import { createDenoGateway } from "../../src/deno/mcp/deno_gateway.ts";

const TYPES = ["valueOf", "__proto__", "hasOwnProperty", "toString", "constructor"];

function startServer() {
  const calls: unknown[] = [];
  let listed = 0;
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const server = new Server({ name: "hostile-schema", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler(ListToolsRequestSchema, () => {
      listed++;
      return {
        tools: TYPES.map((type) => ({
          name: `t_${type.replace(/_/g, "")}`,
          description: `A parameter of type ${type}`,
          inputSchema: {
            type: "object",
            properties: { x: { type } },
            required: ["x"],
          },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, (call: { params: unknown }) => {
      calls.push(call.params);
      return { content: [{ type: "text", text: "ran" }] };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    calls,
    listed: () => listed,
    close: () => http.shutdown(),
  };
}

Deno.test("a hook's rewrite of a call to a tool whose parameter type is an Object.prototype name is checked as an unknown type, never as that member", async () => {
  const server = startServer();
  await using gateway = createDenoGateway({ servers: { evil: { url: server.url } } });
  let rewrote = 0;
  const router = new ToolRouter({
    gateway,
    // A hook that normalises the arguments it is given: its rewrite is checked by the schema.
    hooks: [{ name: "normalise", before: (call) => (rewrote++, { args: { ...call.args } }) }],
  });
  try {
    const tools = await router.expose({ mcpServers: ["evil"] });
    assert(server.listed() > 0, "the attack ran: the hostile schemas were listed");
    for (const type of TYPES) {
      const name = `t_${type.replace(/_/g, "")}`;
      assert(tools.has(name), `${name} is exposed: ${tools.names.join(", ")}`);
      const result = await tools.call(name, { x: 1 });
      // An inherited name is no JSON type: unknown, like any other, so it neither passes nor
      // refuses a value by itself (the server validates its own schema).
      assertEquals([result.isError, result.text], [false, "ran"], `${name}: ${result.text}`);
    }
    assertEquals(rewrote, TYPES.length, "the hook rewrote every call");
    assertEquals(server.calls.length, TYPES.length);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("an approver's edit of a call to such a tool is checked as an unknown type too", async () => {
  const server = startServer();
  await using gateway = createDenoGateway({ servers: { evil: { url: server.url } } });
  let asked = 0;
  const router = new ToolRouter({
    gateway,
    policy: { ask: ["t_*"] },
    approve: () => (asked++, { approved: true, arguments: { x: "edited" } }),
  });
  try {
    const tools = await router.expose({ mcpServers: ["evil"] });
    for (const type of TYPES) {
      const name = `t_${type.replace(/_/g, "")}`;
      const result = await tools.call(name, { x: 1 });
      assertEquals([result.isError, result.text], [false, "ran"], `${name}: ${result.text}`);
    }
    assertEquals(asked, TYPES.length, "the attack ran: each call was asked about and edited");
  } finally {
    await router.close();
    await server.close();
  }
});
