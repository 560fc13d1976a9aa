import { assertEquals, assertMatch } from "@std/assert";
import { Client } from "../../../src/core/mcp/mcp_sdk.ts";
import { connectAs } from "../../_helpers/serve_http_in_process.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { DenoStdioClientTransport } from "../../../src/deno/mcp/stdio_client_transport.ts";
import { CLI, cli, exactFlags, makeFixture, startExactServe } from "./_serve_process.ts";

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("serve --http gives each token's user its own servers and never another's", async () => {
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
    const alice = await connectAs(serve.url, "alice-token");
    const bob = await connectAs(serve.url, "bob-token");
    const names = async (client: Client) =>
      (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    assertEquals(await names(alice), ["inbox", "weather"]);
    assertEquals(await names(bob), ["weather"]);
    assertEquals(
      text(await alice.callTool({ name: "inbox", arguments: {} })),
      "3 messages for alice",
    );
    const refused = await bob.callTool({ name: "inbox", arguments: {} });
    assertEquals(refused.isError, true);
    assertMatch(text(refused), /Unknown tool "inbox"/);
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

Deno.test("tools and call take --user for a configured user's tool set", async () => {
  const mailbox = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("inbox", { description: "Alice's inbox" }, () => ({
        content: [{ type: "text", text: "3 messages" }],
      }));
    },
  });
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      users: { TOKEN_ALICE: { id: "alice", mcpServers: { mail: { url: mailbox.url } } } },
    });
    const listed = await cli(["tools", "--config", fixture.config, "--user", "alice"]);
    assertEquals(listed.out.split("\n"), ["NAME   SOURCE    SHADOWED-BY", "inbox  user_mcp  -"]);
    const anonymous = await cli(["call", "inbox", "{}", "--config", fixture.config]);
    assertEquals(anonymous.code, 1);
    const called = await cli([
      "call",
      "inbox",
      "{}",
      "--config",
      fixture.config,
      "--user",
      "alice",
    ]);
    assertEquals([called.code, called.out], [0, "3 messages"]);
  } finally {
    await mailbox.close();
  }
});

Deno.test("serve refuses to listen beyond loopback without users, and a user without a token", async () => {
  await using fixture = await makeFixture();
  const open = await cli([
    "serve",
    "--config",
    fixture.config,
    "--http",
    "0.0.0.0:0",
    "--allow-excess",
  ]);
  assertEquals(open.code, 2);
  assertMatch(open.err, /requires bearer tokens: add "users" to the config/);
  await using withUser = await makeFixture({
    users: { TOOLROUTE_TEST_UNSET_TOKEN: { id: "carol" } },
  });
  const unset = await cli([
    "serve",
    "--config",
    withUser.config,
    "--http",
    "127.0.0.1:0",
    "--allow-excess",
  ]);
  assertEquals(unset.code, 2);
  assertMatch(
    unset.err,
    /The token of user "carol" is not set: set the environment variable TOOLROUTE_TEST_UNSET_TOKEN/,
  );
});

Deno.test("serve --stdio --user serves that user's servers; http.stateless serves without sessions", async () => {
  const mailbox = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("inbox", { description: "Alice's inbox" }, () => ({
        content: [{ type: "text", text: "3 messages" }],
      }));
    },
  });
  try {
    await using fixture = await makeFixture({
      expose: { builtins: ["read_file"] },
      users: { TOKEN_ALICE: { id: "alice", mcpServers: { mail: { url: mailbox.url } } } },
      http: { stateless: true },
    });
    const stdioFlags = await exactFlags(["--config", fixture.config]);
    const stdio = new Client({ name: "test", version: "1.0.0" });
    await stdio.connect(
      new DenoStdioClientTransport({
        command: Deno.execPath(),
        args: ["run", ...stdioFlags, CLI, "serve", "--config", fixture.config, "--user", "alice"],
        // toolroute serve under test runs as the host runs it, not in a server sandbox.
        sandbox: "none",
      }),
    );
    assertEquals(text(await stdio.callTool({ name: "inbox", arguments: {} })), "3 messages");
    await stdio.close();
    await using serve = await startExactServe(fixture.config, {
      TOKEN_ALICE: "alice-token",
    });
    const http = await connectAs(serve.url, "alice-token");
    const names = (await http.listTools()).tools.map((tool: { name: string }) => tool.name);
    assertEquals(names, ["inbox", "read_file"]);
    assertEquals(text(await http.callTool({ name: "inbox", arguments: {} })), "3 messages");
    await http.close();
    assertEquals(await serve.stop(), 0);
  } finally {
    await mailbox.close();
  }
});
