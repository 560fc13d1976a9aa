import { assert, assertEquals, assertMatch } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { exactFlags, makeFixture, startHttpServe } from "./_serve_process.ts";

/** A round-robin proxy on 127.0.0.1: request n goes to target n mod 2; records which. */
function roundRobin(targets: string[]) {
  const served: number[] = [];
  let next = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const index = next++ % targets.length;
    served.push(index);
    const target = new URL(targets[index]);
    const url = new URL(request.url);
    url.host = target.host;
    const headers = new Headers(request.headers);
    headers.set("host", target.host);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const response = await fetch(url, { method: request.method, headers, body });
    return new Response(response.body, response);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    served,
    close: () => server.shutdown(),
  };
}

Deno.test("two serve --http processes behind a round-robin proxy serve one population of 2026-07-28 users", async () => {
  const deployed: string[] = [];
  const upstream = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("deploy", { description: "Deploys" }, () => {
        deployed.push("deploy");
        return { content: [{ type: "text", text: "deployed" }] };
      });
      server.registerTool("status", { description: "Status" }, () => ({
        content: [{ type: "text", text: "green" }],
      }));
    },
  });
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      mcpServers: { ops: { url: upstream.url } },
      policy: { ask: ["deploy"] },
      users: { TOKEN_ALICE: { id: "alice" }, TOKEN_BOB: { id: "bob" } },
    });
    const store = `${fixture.dir}/state.db`;
    const args = ["--config", fixture.config, "--store", store];
    const flags = await exactFlags([...args, "--http", "127.0.0.1:0"]);
    const env = { TOKEN_ALICE: "alice-token", TOKEN_BOB: "bob-token" };
    await using first = await startHttpServe(flags, args, env);
    await using second = await startHttpServe(flags, args, env);
    const proxy = roundRobin([first.url, second.url]);
    try {
      const connect = async (token: string) => {
        const client = new Client({ name: "modern", version: "1.0.0" }, {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: { pin: "2026-07-28" } },
        });
        client.setRequestHandler(
          "elicitation/create",
          () => ({ action: "accept", content: { approve: true } }) as never,
        );
        await client.connect(
          new StreamableHTTPClientTransport(new URL(proxy.url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      };
      const alice = await connect("alice-token");
      const bob = await connect("bob-token");
      for (let i = 0; i < 4; i++) {
        const status = await alice.callTool({ name: "status", arguments: {} });
        assertEquals((status.content as { text: string }[])[0].text, "green");
      }
      // The ask is answered on one process and the retry lands on the other: the approval, signed
      // with the secret both read from the store, is settled there.
      const before = proxy.served.length;
      const result = await alice.callTool({ name: "deploy", arguments: {} });
      assertEquals((result.content as { text: string }[])[0].text, "deployed");
      assertEquals(deployed, ["deploy"]);
      const rounds = proxy.served.slice(before);
      assertEquals(rounds.length, 2, "an input_required round and its retry");
      assert(rounds[0] !== rounds[1], "the retry went to the other process");
      const bobResult = await bob.callTool({ name: "deploy", arguments: {} });
      assertEquals((bobResult.content as { text: string }[])[0].text, "deployed");
      assertEquals(deployed, ["deploy", "deploy"]);
      // Both processes answered, and no session id was handed out by either.
      assert(proxy.served.includes(0) && proxy.served.includes(1));
      await alice.close();
      await bob.close();
    } finally {
      await proxy.close();
    }
    assertEquals(await first.stop(), 0);
    assertEquals(await second.stop(), 0);
    const logs = first.stderr() + second.stderr();
    assertMatch(logs, /call deploy global_mcp user=alice \d+ ms ok/);
    assertMatch(logs, /call deploy global_mcp user=bob \d+ ms ok/);
  } finally {
    await upstream.close();
  }
});
