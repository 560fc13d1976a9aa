// A server that starts slowly does not hold up serve's tools/list: the list answers with the
// servers that are ready, and the client is told (notifications/tools/list_changed) when it is.
import { assert, assertEquals } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { startServeHttp } from "../../_helpers/serve_http_in_process.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

const TOKEN = "alice-token-0123456789";

for (const era of ["2025", "2026-07-28"] as const) {
  Deno.test(`serve lists the ready tools at once, then tells a connected ${era} client when a slow server arrives, and lists its tools`, () =>
    slowServerArrives(era));
}

async function slowServerArrives(era: "2025" | "2026-07-28"): Promise<void> {
  const held = Promise.withResolvers<void>();
  let reached = false;
  const upstream = await startMcpTestServer({
    intercept: async () => {
      reached = true;
      await held.promise;
      return undefined;
    },
  });
  const serve = await startServeHttp({
    expose: { builtins: ["read_file"] },
    mcpServers: {
      slow: { url: upstream.url },
      // Reads stdin and never answers; its own deadline only keeps close() short.
      quiet: { command: "/bin/sh", args: ["-c", "cat > /dev/null"], connectTimeoutMs: 3000 },
    },
    listWaitMs: 200,
  }, { tokens: { [TOKEN]: "alice" }, prefix: "toolroute_slow_", notifyToolsChanged: true });
  const { served } = serve;
  const client = new Client({ name: "slow-test", version: "1.0.0" }, {
    versionNegotiation: { mode: era === "2025" ? "legacy" : { pin: "2026-07-28" } },
  });
  let subscription: { close(): Promise<void> } | undefined;
  try {
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    // The 2026-07-28 era has no session stream: the client listens for list changes.
    if (era === "2026-07-28") subscription = await client.listen({ toolsListChanged: true });
    assertEquals(client.getProtocolEra(), era === "2025" ? "legacy" : "modern");
    const first = (await client.listTools()).tools.map((tool) => tool.name);
    assertEquals(first, ["read_file"]);
    // The slow server is connecting, not down: its connect request arrives (on a loaded machine
    // after the list's 200 ms wait, which is the point: the list did not wait for it).
    for (const until = performance.now() + 20_000; !reached && performance.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert(reached, "the slow server received the connect request");
    const starting = (await served.expose()).missing.map((entry) => [entry.name, entry.reason]);
    assertEquals(starting.map(([name]) => name).sort(), ["quiet", "slow"]);
    for (const [, reason] of starting) assert(/is starting/.test(reason), reason);
    held.resolve();
    await changed.promise;
    const second = (await client.listTools()).tools.map((tool) => tool.name);
    assert(second.includes("echo") && second.includes("read_file"), second.join());
    const states = Object.fromEntries(
      served.gateway!.status().map((status) => [status.id, status.state]),
    );
    assertEquals(states.slow, "ready");
    assert(states.quiet !== "ready", "the silent server never answered");
  } finally {
    held.resolve();
    await subscription?.close();
    await client.close();
    await serve.stop();
    await upstream.close();
  }
}
