import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { createOAuthWorld, type OAuthWorld } from "../../_helpers/oauth_world.ts";
import { exactFlags, makeFixture, startHttpServe } from "./_serve_process.ts";

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("serve --http hosts the OAuth redirect and hands the authorization URL to the client in connect_accounts", async () => {
  // The MCP server and its authorization server, on loopback.
  const holder: { world?: OAuthWorld } = {};
  const serve = (request: Request) => holder.world!.fetch(request);
  const resource = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, serve);
  const issuer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, serve);
  const world = holder.world = createOAuthWorld({
    resource: `http://127.0.0.1:${resource.addr.port}`,
    issuers: [`http://127.0.0.1:${issuer.addr.port}`],
  });
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      users: { TOKEN_ALICE: { id: "alice", mcpServers: { crm: { url: world.mcpUrl } } } },
    });
    const port = freePort();
    const listen = `127.0.0.1:${port}`;
    // The authorization server is found at run time: its host is added to --allow-net.
    const flags = (await exactFlags(["--config", fixture.config, "--http", listen])).map((flag) =>
      flag.startsWith("--allow-net=") ? `${flag},127.0.0.1:${issuer.addr.port}` : flag
    );
    await using served = await startHttpServe(
      flags,
      ["--config", fixture.config, "--allow-excess"],
      { TOKEN_ALICE: "alice-token" },
      listen,
    );
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: "Bearer alice-token" } },
      }),
    );
    const names = async () =>
      (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    assertEquals(await names(), ["connect_accounts"]);
    const listing = text(await client.callTool({ name: "connect_accounts", arguments: {} }));
    assertStringIncludes(listing, "- crm: Authorization required");
    const url = listing.match(/must open (\S+) and allow access/)![1];
    // The user signs in; the browser lands on serve's redirect endpoint.
    const callback = world.consent(url, "alice");
    assert(callback.startsWith(`http://127.0.0.1:${port}/oauth/callback?`), callback);
    const landed = await fetch(callback);
    assertEquals(landed.status, 200);
    assertStringIncludes(await landed.text(), 'Authorization for "crm" is complete');
    assertEquals((await names()).sort(), ["echo_token", "fail_echoing_token", "whoami"]);
    assertEquals(text(await client.callTool({ name: "whoami", arguments: {} })), "alice");
    // The redirect is single-use.
    const again = await fetch(callback);
    assertEquals(again.status, 400);
    await again.body?.cancel();
    // Nothing on stderr carries a token.
    for (const token of world.issued) assert(!served.stderr().includes(token));
    await client.close();
  } finally {
    await resource.shutdown();
    await issuer.shutdown();
  }
});
