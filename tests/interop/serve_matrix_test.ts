/**
 * The `serve` cells of the interop matrix: `toolroute serve --http` (a real child process on
 * 127.0.0.1, two users with bearer tokens, one with a server of their own) against a 2.x client
 * pinned to 2026-07-28, a 2.x client in `auto` and in legacy mode, and a 1.x client. Each cell
 * checks the era the client got (a session only in 2025) and that each user sees and calls only
 * their own tools.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
// @ts-types="@modelcontextprotocol/sdk/client"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startMcpTestServer } from "../_helpers/mcp_test_server.ts";
import { makeFixture, startExactServe } from "../deno/cli/_serve_process.ts";

type Cell = "2.x pinned to 2026-07-28" | "2.x auto" | "2.x legacy" | "1.x";

/** What a cell needs of a connected client, whichever SDK line it is. */
interface Connected {
  names(): Promise<string[]>;
  call(name: string): Promise<{ isError?: boolean; text: string }>;
  /** The session id the server gave, if any. */
  sessionId(): string | undefined;
  /** The era the client negotiated (the 1.x line knows only 2025). */
  era(): string | undefined;
  close(): Promise<void>;
}

async function connect(cell: Cell, url: string, token: string): Promise<Connected> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const textOf = (result: unknown) => {
    const { isError, content } = result as { isError?: boolean; content: { text: string }[] };
    return { isError, text: content[0].text };
  };
  if (cell === "1.x") {
    const transport = new V1Transport(new URL(url), { requestInit });
    const client = new V1Client({ name: "v1", version: "1.0.0" });
    await client.connect(transport);
    return {
      names: async () => (await client.listTools()).tools.map((tool) => tool.name),
      call: async (name) => textOf(await client.callTool({ name, arguments: {} })),
      sessionId: () => transport.sessionId,
      era: () => "legacy",
      close: () => client.close(),
    };
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
  const client = new Client({ name: "v2", version: "2.0.0" }, {
    versionNegotiation: {
      mode: cell === "2.x pinned to 2026-07-28"
        ? { pin: "2026-07-28" }
        : cell === "2.x auto"
        ? "auto"
        : "legacy",
    },
  });
  await client.connect(transport);
  return {
    names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name) => textOf(await client.callTool({ name, arguments: {} })),
    sessionId: () => transport.sessionId,
    era: () => client.getProtocolEra(),
    close: () => client.close(),
  };
}

const CELLS: readonly Cell[] = ["2.x pinned to 2026-07-28", "2.x auto", "2.x legacy", "1.x"];

for (const cell of CELLS) {
  Deno.test(`toolroute serve --http serves a ${cell} client, each user their own tools`, async () => {
    const shared = await startMcpTestServer({
      tools: (server) => {
        server.registerTool("weather", { description: "Shared weather" }, () => ({
          content: [{ type: "text", text: "sunny" }],
        }));
      },
    });
    const mailbox = await startMcpTestServer({
      tools: (server) => {
        server.registerTool("inbox", { description: "Alice's inbox" }, () => ({
          content: [{ type: "text", text: "3 messages for alice" }],
        }));
      },
    });
    try {
      await using fixture = await makeFixture({
        expose: { builtins: [] },
        mcpServers: { shared: { url: shared.url } },
        users: {
          TOKEN_ALICE: { id: "alice", mcpServers: { mail: { url: mailbox.url } } },
          TOKEN_BOB: { id: "bob" },
        },
      });
      await using serve = await startExactServe(fixture.config, {
        TOKEN_ALICE: "alice-token",
        TOKEN_BOB: "bob-token",
      });
      const alice = await connect(cell, serve.url, "alice-token");
      const bob = await connect(cell, serve.url, "bob-token");
      const modern = cell === "2.x pinned to 2026-07-28" || cell === "2.x auto";
      assertEquals(alice.era(), modern ? "modern" : "legacy");
      if (modern) assertEquals(alice.sessionId(), undefined, "no session in 2026-07-28");
      else assert(typeof alice.sessionId() === "string", "a 2025 session");
      assertEquals(await alice.names(), ["inbox", "weather"]);
      assertEquals(await bob.names(), ["weather"]);
      assertEquals((await alice.call("inbox")).text, "3 messages for alice");
      assertEquals((await bob.call("weather")).text, "sunny");
      // Bob calls alice's tool by name: it reaches serve and runs nothing.
      const refused = await bob.call("inbox");
      assertEquals(refused.isError, true);
      assertMatch(refused.text, /Unknown tool "inbox"/);
      await alice.close();
      await bob.close();
      assertEquals(await serve.stop(), 0);
      assertMatch(serve.stderr(), /call inbox user_mcp user=alice \d+ ms ok/);
      assertMatch(serve.stderr(), /call inbox - user=bob \d+ ms error unknown_tool/);
    } finally {
      await shared.close();
      await mailbox.close();
    }
  });
}
