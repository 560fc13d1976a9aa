// A hostile MCP server answers with each redirect status, to a place on its own origin (which the
// SDK's own redirect loop would follow, were it in the path) and to another server. The gateway's
// requests say `redirect: "manual"` and its guard refuses every 3xx: on connect the server is
// missing, on a call the call fails once, and nothing is sent again or to the redirect's target.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../../../_helpers/mcp_test_server.ts";

const STATUSES = [301, 302, 303, 307, 308];

async function methodOf(request: Request): Promise<string | undefined> {
  if (request.method !== "POST") return undefined;
  const body = await request.clone().json().catch(() => undefined);
  return typeof body?.method === "string" ? body.method : undefined;
}

Deno.test("a tools/call answered with any redirect status, same origin or not, is sent once and never followed", async () => {
  let target = 0;
  const elsewhere = await startMcpTestServer({
    intercept: () => {
      target++;
      return undefined;
    },
  });
  let status = 0;
  let calls = 0;
  let followed = 0;
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (new URL(request.url).searchParams.has("moved")) followed++;
      if (status === 0 || await methodOf(request) !== "tools/call") return undefined;
      calls++;
      const location = status % 2 === 0 ? `${elsewhere.url}?moved` : "/mcp?moved";
      return new Response(null, { status, headers: { location } });
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { moved: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["moved"] });
    for (status of STATUSES) {
      const before = calls;
      const result = await toolSet.call("echo", { text: `status ${status}` });
      assert(result.isError, `${status}: ${result.text}`);
      assertMatch(result.text, new RegExp(`redirect \\(HTTP ${status}`));
      // It ran: the server had the call, once.
      assertEquals(calls - before, 1, `HTTP ${status} was sent ${calls - before} times`);
    }
    assertEquals(followed, 0);
    assertEquals(target, 0);
    // The connection still serves a call the server answers.
    status = 0;
    const ok = await toolSet.call("add", { a: 2, b: 3 });
    assertEquals(ok.isError, false, ok.text);
  } finally {
    await router.close();
    await server.close();
    await elsewhere.close();
  }
});

Deno.test("a connect answered with any redirect status leaves the server missing and reaches no target", async () => {
  let target = 0;
  const elsewhere = await startMcpTestServer({
    intercept: () => {
      target++;
      return undefined;
    },
  });
  for (const status of STATUSES) {
    let initializes = 0;
    let followed = 0;
    const server = await startMcpTestServer({
      intercept: async (request) => {
        if (new URL(request.url).searchParams.has("moved")) followed++;
        if (await methodOf(request) !== "initialize") return undefined;
        initializes++;
        const location = status % 2 === 0 ? `${elsewhere.url}?moved` : "/mcp?moved";
        return new Response(null, { status, headers: { location } });
      },
    });
    const router = new ToolRouter({
      gateway: new McpGateway({ servers: { moved: { url: server.url } } }),
    });
    try {
      const toolSet = await router.expose({ mcpServers: ["moved"] });
      assertEquals(toolSet.names.length, 0);
      assertMatch(toolSet.missing[0].reason, new RegExp(`redirect \\(HTTP ${status}`));
      assert(initializes >= 1, `HTTP ${status}: no initialize reached the server`);
      assertEquals(followed, 0, `HTTP ${status} was followed`);
    } finally {
      await router.close();
      await server.close();
    }
  }
  assertEquals(target, 0);
  await elsewhere.close();
});
