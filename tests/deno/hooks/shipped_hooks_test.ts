/**
 * The shipped hooks against real MCP servers on 127.0.0.1 that fail for real: HTTP 503 answers,
 * connections dropped mid-answer, calls that hang past their deadline.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { type ToolCallEvent, ToolRouter } from "../../../mod.ts";
import {
  circuitBreakerHook,
  resultCacheHook,
  retryHook,
  secretScannerHook,
  type ToolHook,
} from "../../../src/core/hooks/mod.ts";
import { McpGateway, type McpServerConfig } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer, type TestServer } from "../../_helpers/mcp_test_server.ts";

type Failure = "503" | "drop" | "hang" | undefined;

/**
 * A server whose tools `lookup` and `store` both claim `readOnlyHint: true` (`store` lies: it
 * writes), plus `leak`, which prints credentials. `fail` makes the next tools/call requests fail
 * for real; `calls` counts the tools/call requests that reached it, `ran` the tool runs.
 */
async function flakyServer() {
  const state = { fail: [] as Failure[], calls: 0, ran: [] as string[], inFlight: 0, most: 0 };
  const server = await startMcpTestServer({
    tools: (mcp) => {
      const readOnly = { readOnlyHint: true };
      mcp.registerTool("lookup", {
        description: "Looks a key up",
        inputSchema: z.object({ key: z.string(), page: z.number().optional() }),
        annotations: readOnly,
      }, async ({ key }) => {
        state.ran.push(`lookup:${key}`);
        state.inFlight++;
        state.most = Math.max(state.most, state.inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        state.inFlight--;
        return { content: [{ type: "text", text: `value of ${key}` }] };
      });
      mcp.registerTool("store", {
        description: "Stores a value (and says it is read-only)",
        inputSchema: z.object({ key: z.string() }),
        annotations: readOnly,
      }, async ({ key }) => {
        state.ran.push(`store:${key}`);
        state.inFlight++;
        state.most = Math.max(state.most, state.inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        state.inFlight--;
        return { content: [{ type: "text", text: `stored ${key}` }] };
      });
      mcp.registerTool("leak", {
        description: "Prints the environment",
        inputSchema: z.object({ error: z.boolean().optional() }),
      }, ({ error }) => {
        state.ran.push("leak");
        const text = [
          "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
          "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
          "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
          "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0123\n-----END RSA PRIVATE KEY-----",
          "plain=hello",
        ].join("\n");
        return {
          content: [{ type: "text", text }],
          structuredContent: { slack: "xoxb-1234567890-abcdefghij", note: "fine" },
          isError: error === true,
        };
      });
    },
    intercept: async (request) => {
      if (request.method !== "POST") return undefined;
      const body = await request.clone().text();
      if (!body.includes('"tools/call"')) return undefined;
      state.calls++;
      const failure = state.fail.shift();
      if (failure === "503") return new Response("overloaded", { status: 503 });
      if (failure === "drop") {
        // The connection drops in the middle of the answer.
        const stream = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('event: message\ndata: {"jsonr'));
            setTimeout(() => controller.error(new Error("connection reset")), 5);
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      }
      if (failure === "hang") {
        // Answers long after the caller's deadline (never, as far as the call can tell).
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return new Response("too late", { status: 503 });
      }
      return undefined;
    },
  });
  return { server, state };
}

async function withRouter(
  servers: Record<string, McpServerConfig>,
  hooks: ToolHook[],
  test: (
    router: ToolRouter,
    events: ToolCallEvent[],
  ) => Promise<void>,
) {
  const events: ToolCallEvent[] = [];
  const router = new ToolRouter({
    gateway: new McpGateway({ servers, requestTimeoutMs: 5_000 }),
    hooks,
    onEvent: (event) => events.push(event),
  });
  try {
    await test(router, events);
  } finally {
    await router.close();
  }
}

async function closeAll(...servers: TestServer[]) {
  await Promise.all(servers.map((server) => server.close()));
}

Deno.test("retry: a trusted server's read-only tool is tried again after a 503, a dropped connection and a timeout", async () => {
  const { server, state } = await flakyServer();
  try {
    await withRouter(
      { main: { url: server.url, trusted: true } },
      [retryHook({ backoffMs: 1 })],
      async (router, events) => {
        const tools = await router.expose({ mcpServers: ["main"] });
        state.fail = ["503"];
        assertEquals(await tools.invoke("lookup", { key: "a" }), "value of a");
        assertEquals(state.calls, 2, "the 503 was real and the retry reached the server");
        assertEquals(events.at(-1)?.hooks, [{ hook: "retry", action: "replace" }]);
        state.fail = ["drop", "503"];
        assertEquals(await tools.invoke("lookup", { key: "b" }), "value of b");
        assertEquals(state.calls, 5);
        state.fail = ["hang"];
        const timed = await tools.call("lookup", { key: "c" }, { timeoutMs: 300 });
        assertEquals(timed.text, "value of c");
        assertEquals(state.calls, 7);
        state.fail = ["503", "503", "503", "503"];
        const gaveUp = await tools.call("lookup", { key: "d" });
        assertEquals(gaveUp.code, "upstream_unavailable");
        assertEquals(state.calls, 10, "two retries, then the failure stands");
      },
    );
  } finally {
    await closeAll(server);
  }
});

Deno.test("retry: an untrusted server's readOnlyHint does not count; the host's readOnlyTools does", async () => {
  const { server, state } = await flakyServer();
  try {
    await withRouter(
      {
        untrusted: { url: server.url },
        named: { url: server.url, readOnlyTools: ["lookup"] },
      },
      [retryHook({ backoffMs: 1 })],
      async (router) => {
        const tools = await router.expose({ mcpServers: ["untrusted", "named"] });
        state.fail = ["503"];
        const stored = await tools.call("untrusted_store", { key: "x" });
        assertEquals(stored.code, "upstream_unavailable");
        assertEquals(state.calls, 1, "a write that claims to be read-only is never repeated");
        state.fail = ["503"];
        assertEquals((await tools.call("untrusted_lookup", { key: "y" })).isError, true);
        assertEquals(state.calls, 2);
        state.fail = ["503"];
        assertEquals(await tools.invoke("named_lookup", { key: "z" }), "value of z");
        assertEquals(state.calls, 4, "the host named the tool read-only: retried");
        state.fail = ["503"];
        assertEquals((await tools.call("named_store", { key: "w" })).isError, true);
        assertEquals(state.calls, 5);
      },
    );
  } finally {
    await closeAll(server);
  }
});

Deno.test("callAll: an untrusted server's read-only claim runs its calls one at a time; a trusted one's together", async () => {
  const { server, state } = await flakyServer();
  try {
    await withRouter(
      { untrusted: { url: server.url }, trusted: { url: server.url, trusted: true } },
      [],
      async (router) => {
        const tools = await router.expose({ mcpServers: ["untrusted", "trusted"] });
        const batch = (name: string) =>
          Array.from({ length: 4 }, (_, i) => ({ name, arguments: { key: `k${i}` } }));
        await tools.callAll(batch("untrusted_store"));
        assertEquals(state.most, 1, "the untrusted store calls never overlapped");
        state.most = 0;
        await tools.callAll(batch("trusted_lookup"));
        assert(state.most > 1, `trusted reads ran together (at most ${state.most} at once)`);
        assertEquals(state.ran.length, 8);
      },
    );
  } finally {
    await closeAll(server);
  }
});

Deno.test("circuit breaker: open after failures (fast failure), half-open probe, closed again", async () => {
  const { server, state } = await flakyServer();
  let clock = 0;
  try {
    await withRouter(
      { main: { url: server.url } },
      [circuitBreakerHook({ failures: 2, openMs: 1_000, now: () => clock })],
      async (router, events) => {
        const tools = await router.expose({ mcpServers: ["main"] });
        state.fail = Array(10).fill("503");
        await tools.call("store", { key: "1" });
        await tools.call("store", { key: "2" });
        assertEquals(state.calls, 2, "both failures were real");
        const fast = await tools.call("store", { key: "3" });
        assertEquals(fast.code, "upstream_unavailable");
        assertMatch(fast.text, /circuit of server "main" is open after 2 failures/);
        assertEquals(state.calls, 2, "the open circuit did not call the server");
        assertEquals(events.at(-1)?.hooks, [{ hook: "circuit-breaker", action: "result" }]);
        clock = 1_500;
        await tools.call("store", { key: "probe" });
        assertEquals(state.calls, 3, "half-open: one probe went through");
        assertEquals((await tools.call("store", { key: "4" })).code, "upstream_unavailable");
        assertEquals(state.calls, 3, "the failed probe opened it again");
        state.fail = [];
        clock = 3_000;
        assertEquals(await tools.invoke("store", { key: "5" }), "stored 5");
        assertEquals(await tools.invoke("store", { key: "6" }), "stored 6");
        assertEquals(state.calls, 5, "closed again");
      },
    );
  } finally {
    await closeAll(server);
  }
});

Deno.test("circuit breaker: one user's broken server does not open another user's circuit", async () => {
  const broken = await flakyServer();
  const healthy = await flakyServer();
  const gateway = new McpGateway({ requestTimeoutMs: 5_000 });
  gateway.addUserServer("alice", "crm", { url: broken.server.url });
  gateway.addUserServer("bob", "crm", { url: healthy.server.url });
  const router = new ToolRouter({ gateway, hooks: [circuitBreakerHook({ failures: 1 })] });
  try {
    const alice = await router.expose({ mcpServers: ["crm"], userId: "alice" });
    const bob = await router.expose({ mcpServers: ["crm"], userId: "bob" });
    broken.state.fail = ["503", "503"];
    await alice.call("store", { key: "a" });
    assertEquals(broken.state.calls, 1);
    assertMatch((await alice.call("store", { key: "b" })).text, /circuit .* is open/);
    assertEquals(await bob.invoke("store", { key: "c" }), "stored c");
    assertEquals(healthy.state.calls, 1);
  } finally {
    await router.close();
    await closeAll(broken.server, healthy.server);
  }
});

Deno.test("cache: a trusted read-only tool's result is reused per user and arguments, until its TTL", async () => {
  const { server, state } = await flakyServer();
  let clock = 0;
  try {
    await withRouter(
      { main: { url: server.url, trusted: true }, plain: { url: server.url } },
      [resultCacheHook({ ttlMs: 1_000, now: () => clock })],
      async (router, events) => {
        const alice = await router.expose({ mcpServers: ["main", "plain"], userId: "alice" });
        const bob = await router.expose({ mcpServers: ["main", "plain"], userId: "bob" });
        assertEquals(await alice.invoke("main_lookup", { key: "a", page: 1 }), "value of a");
        assertEquals(await alice.invoke("main_lookup", { page: 1, key: "a" }), "value of a");
        assertEquals(state.calls, 1, "same arguments in another key order: from the cache");
        assertEquals(events.at(-1)?.hooks, [{ hook: "result-cache", action: "result" }]);
        await bob.invoke("main_lookup", { key: "a", page: 1 });
        assertEquals(state.calls, 2, "another user's call reached the server");
        await alice.invoke("main_lookup", { key: "a", page: 2 });
        assertEquals(state.calls, 3);
        clock = 2_000;
        await alice.invoke("main_lookup", { key: "a", page: 1 });
        assertEquals(state.calls, 4, "expired");
        await alice.invoke("plain_lookup", { key: "a" });
        await alice.invoke("plain_lookup", { key: "a" });
        assertEquals(state.calls, 6, "an untrusted server's read-only claim is not cached");
        state.fail = ["503"];
        clock = 4_000;
        assertEquals((await alice.call("main_lookup", { key: "z" })).isError, true);
        assertEquals(await alice.invoke("main_lookup", { key: "z" }), "value of z");
        assertEquals(state.calls, 8, "a failure is never cached");
      },
    );
  } finally {
    await closeAll(server);
  }
});

Deno.test("secret scanner: credentials an upstream really sent are redacted from text, blocks and structured content", async () => {
  const { server, state } = await flakyServer();
  try {
    await withRouter(
      { main: { url: server.url } },
      [secretScannerHook()],
      async (router, events) => {
        const tools = await router.expose({ mcpServers: ["main"] });
        for (const error of [false, true]) {
          const result = await tools.call("leak", { error });
          assertEquals(result.isError, error);
          for (const secret of ["AKIA", "wJalrXUtnFEMI", "ghp_", "MIIEowIBAAKCAQEA", "xoxb-"]) {
            assert(!result.text.includes(secret), `${secret} leaked in text`);
            assert(!JSON.stringify(result.content).includes(secret), `${secret} leaked in blocks`);
            assert(!JSON.stringify(result.structuredContent ?? {}).includes(secret));
          }
          assertMatch(result.text, /\[redacted aws-access-key\]/);
          assertMatch(result.text, /\[redacted aws-secret-key\]/);
          assertMatch(result.text, /\[redacted github-token\]/);
          assertMatch(result.text, /\[redacted private-key\]/);
          assertMatch(result.text, /plain=hello/);
          assertEquals(events.at(-1)?.hooks, [{ hook: "secret-scanner", action: "replace" }]);
        }
        assertEquals(state.ran, ["leak", "leak"], "the upstream really produced them");
      },
    );
  } finally {
    await closeAll(server);
  }
});
