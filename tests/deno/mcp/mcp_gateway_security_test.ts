import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

const ALICE = "Bearer alice-secret-token-1";
const BOB = "Bearer bob-secret-token-2";

Deno.test("a per-user server is visible and callable only for its user, with its own headers", async () => {
  const server = await startMcpTestServer();
  const gateway = new McpGateway();
  gateway.addUserServer("alice", "crm", { url: server.url, headers: { Authorization: ALICE } });
  gateway.addUserServer("bob", "crm", { url: server.url, headers: { Authorization: BOB } });
  const router = new ToolRouter({ gateway });
  try {
    const alice = await router.expose({ mcpServers: ["crm"], userId: "alice" });
    const bob = await router.expose({ mcpServers: ["crm"], userId: "bob" });
    const nobody = await router.expose({ mcpServers: ["crm"] });
    const carol = await router.expose({ mcpServers: ["crm"], userId: "carol" });
    assertEquals(alice.sourceOf("whoami"), "user_mcp");
    // `whoami` echoes the header its call carried: the connection's own header comes back
    // redacted (another user's header is no secret of this connection and would come back as it
    // is), so `[redacted]` says each call carried its own user's header.
    assertEquals(await alice.invoke("whoami", {}), "[redacted]");
    assertEquals(await bob.invoke("whoami", {}), "[redacted]");
    assertEquals(nobody.names.length, 0);
    assertEquals(nobody.missing[0].reason, "no MCP server has this id");
    assertEquals(carol.names.length, 0);
    for (const headers of server.headersSeen) {
      const auth = headers.get("authorization");
      assert(auth === ALICE || auth === BOB, `unexpected authorization ${auth}`);
    }
    assertEquals(gateway.serverIds("alice"), ["crm"]);
    assertEquals(gateway.serverIds(), []);
    assertEquals(gateway.status().map((s) => [s.userId, s.state]), [["alice", "ready"], [
      "bob",
      "ready",
    ]]);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a user's server shadows a global one, and a down user server never falls back to it", async () => {
  const global = await startMcpTestServer({ name: "global" });
  const personal = await startMcpTestServer({ name: "personal" });
  const gateway = new McpGateway({ servers: { crm: { url: global.url } } });
  gateway.addUserServer("alice", "crm", { url: personal.url, headers: { Authorization: ALICE } });
  const router = new ToolRouter({ gateway });
  try {
    const alice = await router.expose({ mcpServers: ["crm"], userId: "alice" });
    assertEquals(alice.sourceOf("whoami"), "user_mcp");
    assertEquals(await alice.invoke("whoami", {}), "[redacted]"); // her header, redacted
    assert(alice.shadowed.some((s) => s.name === "echo" && s.hidden[0] === "global_mcp"));
    const bob = await router.expose({ mcpServers: ["crm"], userId: "bob" });
    assertEquals(bob.sourceOf("whoami"), "global_mcp");
    assertEquals(await bob.invoke("whoami", {}), "anonymous");
    await personal.close();
    await gateway.clearUser("alice");
    gateway.addUserServer("alice", "crm", { url: personal.url });
    const down = await router.expose({ mcpServers: ["crm"], userId: "alice" });
    assertEquals(down.names.length, 0);
    assertMatch(down.missing[0].reason, /the user's MCP server is unavailable: .*not used instead/);
  } finally {
    await router.close();
    await global.close();
    await personal.close();
  }
});

Deno.test("allowedHosts rejects other hosts when adding a server", () => {
  const gateway = new McpGateway({ allowedHosts: ["127.0.0.1"] });
  gateway.addServer("ok", { url: "http://127.0.0.1:9/mcp" });
  const error = assertThrows(
    () => gateway.addServer("evil", { url: "http://localhost:9/mcp" }),
    TypeError,
  );
  assertMatch(error.message, /Host "localhost:9" is not in "allowedHosts"/);
  assertThrows(
    () => gateway.addUserServer("u", "x", { url: "http://example.com/mcp" }),
    TypeError,
    "allowedHosts",
  );
});

Deno.test("a tools/call answered with a redirect is sent once: the server had it, and may have run it", async () => {
  let posts = 0;
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method !== "POST") return undefined;
      const body = await request.clone().json().catch(() => undefined);
      if (body?.method !== "tools/call") return undefined;
      posts++;
      // 303 See Other after a POST: "done, the answer is elsewhere".
      return new Response(null, { status: 303, headers: { location: "/elsewhere" } });
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { moved: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["moved"] });
    const result = await toolSet.call("echo", { text: "once" });
    assert(result.isError);
    assertMatch(result.text, /redirect \(HTTP 303/);
    assertEquals(posts, 1);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a redirect is not followed and is reported clearly", async () => {
  const target = await startMcpTestServer();
  const server = await startMcpTestServer({
    intercept: () =>
      new Response(null, { status: 307, headers: { location: target.url + "?token=x" } }),
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { moved: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["moved"] });
    assertEquals(toolSet.names.length, 0);
    assertMatch(
      toolSet.missing[0].reason,
      /redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/mcp\)/,
    );
    assertMatch(toolSet.missing[0].reason, /not followed/);
    assertEquals(target.sessionsStarted, 0);
  } finally {
    await router.close();
    await server.close();
    await target.close();
  }
});

Deno.test("error texts never carry configured header values, of this or another connection", async () => {
  const echoing = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes('"echo"')) {
        return undefined;
      }
      return new Response(`denied for ${request.headers.get("authorization")}`, { status: 500 });
    },
  });
  const gateway = new McpGateway();
  gateway.addUserServer("alice", "s", { url: echoing.url, headers: { Authorization: ALICE } });
  gateway.addUserServer("bob", "s", { url: echoing.url, headers: { Authorization: BOB } });
  const router = new ToolRouter({ gateway });
  try {
    for (const [user, mine, theirs] of [["alice", ALICE, BOB], ["bob", BOB, ALICE]]) {
      const toolSet = await router.expose({ mcpServers: ["s"], userId: user });
      const result = await toolSet.call("echo", { text: "x" });
      assert(result.isError);
      assertMatch(result.text, /\[redacted\]/);
      assert(!result.text.includes(mine.split(" ")[1]), result.text);
      assert(!result.text.includes(theirs.split(" ")[1]), result.text);
    }
  } finally {
    await router.close();
    await echoing.close();
  }
});
