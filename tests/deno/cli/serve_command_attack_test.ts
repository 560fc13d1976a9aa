/**
 * Two users of one `serve --http` whose token variables hold the same token: the token map kept
 * the later user only, so the earlier one's token logged in as the other user (that user's own
 * servers and tools), with no word at start.
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { connectAs } from "../../_helpers/serve_http_in_process.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { makeFixture, startExactServe } from "./_serve_process.ts";

Deno.test("attack: serve refuses two users whose tokens are the same, rather than serving one as the other", async () => {
  const mailbox = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("inbox", { description: "Bob's inbox" }, () => ({
        content: [{ type: "text", text: "3 messages for bob" }],
      }));
    },
  });
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      users: {
        TOKEN_ALICE: { id: "alice" },
        TOKEN_BOB: { id: "bob", mcpServers: { mail: { url: mailbox.url } } },
      },
    });
    // Alice's token is the one her operator gave her; Bob's variable holds the same value.
    const env = { TOKEN_ALICE: "shared-token", TOKEN_BOB: "shared-token" };
    const error = await assertRejects(async () => {
      await using serve = await startExactServe(fixture.config, env);
      // Served anyway: the token Alice holds opens Bob's tool set.
      const alice = await connectAs(serve.url, "shared-token");
      const names = (await alice.listTools()).tools.map((tool: { name: string }) => tool.name);
      await alice.close();
      assertEquals(names, ["inbox"]);
      throw new Error(`served Alice's token as Bob: ${names.join(", ")}`);
    });
    assert(!/served Alice's token as Bob/.test(error.message), error.message);
    assertMatch(error.message, /exited with 2/);
    assertMatch(error.message, /users\.TOKEN_ALICE and users\.TOKEN_BOB hold the same token/);
    // The token itself is never printed.
    assert(!error.message.includes("shared-token"));
  } finally {
    await mailbox.close();
  }
});
