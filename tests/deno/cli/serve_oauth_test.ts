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

/** The MCP server and its authorization server, each on its own loopback port. */
function loopbackWorld() {
  const holder: { world?: OAuthWorld } = {};
  const answer = (request: Request) => holder.world!.fetch(request);
  const resource = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, answer);
  const issuer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, answer);
  const world = holder.world = createOAuthWorld({
    resource: `http://127.0.0.1:${resource.addr.port}`,
    issuers: [`http://127.0.0.1:${issuer.addr.port}`],
  });
  return {
    world,
    issuerPort: issuer.addr.port,
    async [Symbol.asyncDispose]() {
      await resource.shutdown();
      await issuer.shutdown();
    },
  };
}

/** Starts `serve --http` on a known port (the redirect URI needs it) with the config. */
async function serveWith(
  options: { issuerPort: number; config: Record<string, unknown> },
  env: Record<string, string>,
  port: number,
) {
  const fixture = await makeFixture(options.config);
  const listen = `127.0.0.1:${port}`;
  // The authorization server is found at run time: its host is added to --allow-net.
  const issuerPort = options.issuerPort;
  const flags = (await exactFlags(["--config", fixture.config, "--http", listen])).map((flag) =>
    flag.startsWith("--allow-net=") ? `${flag},127.0.0.1:${issuerPort}` : flag
  );
  const served = await startHttpServe(
    flags,
    ["--config", fixture.config, "--allow-excess"],
    env,
    listen,
  );
  return {
    served,
    async [Symbol.asyncDispose]() {
      await served[Symbol.asyncDispose]();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

/** `serve --http` on `port` with one user, Alice (`alice-token`), and her own `crm` server. */
function serveAliceCrm(net: ReturnType<typeof loopbackWorld>, port: number) {
  return serveWith(
    {
      issuerPort: net.issuerPort,
      config: {
        expose: { builtins: [] },
        users: { TOKEN_ALICE: { id: "alice", mcpServers: { crm: { url: net.world.mcpUrl } } } },
      },
    },
    { TOKEN_ALICE: "alice-token" },
    port,
  );
}

/**
 * An MCP client of one user. With `urlElicitation`, it declares URL elicitation and records the
 * links serve asks it to show (the person's side); `seen` is everything the model would read.
 */
async function userClient(url: string, token: string, options: { urlElicitation: boolean }) {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { capabilities: options.urlElicitation ? { elicitation: { url: {} } } : {} },
  );
  const shown: { url: string; message: string }[] = [];
  if (options.urlElicitation) {
    client.setRequestHandler("elicitation/create", (request) => {
      const params = request.params as { mode?: string; url?: string; message: string };
      if (params.mode === "url" && params.url) {
        shown.push({ url: params.url, message: params.message });
      }
      return { action: "accept" };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const seen: string[] = [];
  return {
    client,
    shown,
    seen,
    async names(): Promise<string[]> {
      const { tools } = await client.listTools();
      seen.push(JSON.stringify(tools));
      return tools.map((tool: { name: string }) => tool.name).sort();
    },
    async call(name: string): Promise<string> {
      const result = await client.callTool({ name, arguments: {} });
      seen.push(JSON.stringify(result));
      return text(result);
    },
  };
}

/**
 * Plays the person's browser on a sign-in link: the first hop sets the cookie and shows whom the
 * sign-in is for; the person follows its link on to the authorization server.
 */
async function openLink(
  link: string,
  expect: { user: string; server: string },
): Promise<{ location: string; cookie: string }> {
  const hop = await fetch(link, { redirect: "manual" });
  const page = await hop.text();
  assertEquals(hop.status, 200);
  assertStringIncludes(page, `MCP server &quot;${expect.server}&quot;`);
  assertStringIncludes(page, `toolroute user &quot;${expect.user}&quot;`);
  assertEquals(
    hop.headers.get("content-security-policy"),
    "default-src 'none'; frame-ancestors 'none'",
  );
  const setCookie = hop.headers.get("set-cookie")!;
  assertStringIncludes(setCookie, "HttpOnly");
  assertStringIncludes(setCookie, "SameSite=Lax");
  const href = page.match(/<a href="([^"]+)">/)![1].replaceAll("&amp;", "&");
  return { location: href, cookie: setCookie.split(";")[0] };
}

/** No URL and no `state` of any authorization in what the model read. */
function assertNoLinkIn(seen: readonly string[], locations: readonly string[]): void {
  const all = seen.join("\n");
  assert(!/https?:/i.test(all), `a URL reached the model: ${all}`);
  for (const location of locations) {
    const state = new URL(location).searchParams.get("state")!;
    assert(!all.includes(state), "an authorization state reached the model");
  }
}

Deno.test("serve --http asks the user to sign in through URL elicitation, binds the browser with a cookie, and shows the model no link", async () => {
  await using net = loopbackWorld();
  const { world } = net;
  const port = freePort();
  await using run = await serveAliceCrm(net, port);
  const alice = await userClient(run.served.url, "alice-token", { urlElicitation: true });
  assertEquals(await alice.names(), ["connect_accounts"]);
  const answer = await alice.call("connect_accounts");
  assertStringIncludes(answer, "crm: the user was shown the sign-in page");
  // The link went to the person's client, and points at serve's first hop, not the upstream.
  assertEquals(alice.shown.length, 1);
  const link = alice.shown[0].url;
  assert(link.startsWith(`http://127.0.0.1:${port}/oauth/start?ticket=`), link);
  const browser = await openLink(link, { user: "alice", server: "crm" });
  assert(browser.location.startsWith(`http://127.0.0.1:${net.issuerPort}/authorize?`));
  const callback = world.consent(browser.location, "alice");
  assert(callback.startsWith(`http://127.0.0.1:${port}/oauth/callback?`), callback);
  const landed = await fetch(callback, { headers: { cookie: browser.cookie } });
  assertEquals(landed.status, 200);
  assertStringIncludes(await landed.text(), 'Authorization for "crm" is complete');
  assertEquals(await alice.names(), ["echo_token", "fail_echoing_token", "whoami"]);
  assertEquals(await alice.call("whoami"), "alice");
  // The link and the redirect are single-use.
  const reused = await fetch(link, { redirect: "manual" });
  assertEquals(reused.status, 400);
  await reused.body?.cancel();
  const again = await fetch(callback, { headers: { cookie: browser.cookie } });
  assertEquals(again.status, 400);
  await again.body?.cancel();
  assertNoLinkIn(alice.seen, [browser.location]);
  for (const token of world.issued) assert(!run.served.stderr().includes(token));
  await alice.client.close();
});

Deno.test("a leaked authorization URL opened in another browser is refused at serve's callback and links nothing", async () => {
  await using net = loopbackWorld();
  const { world } = net;
  const port = freePort();
  await using run = await serveAliceCrm(net, port);
  const alice = await userClient(run.served.url, "alice-token", { urlElicitation: true });
  await alice.call("connect_accounts");
  const browser = await openLink(alice.shown[0].url, { user: "alice", server: "crm" });
  // The attack: the authorization URL leaks; Mallory opens it, signs in with his own account,
  // and his browser (without Alice's cookie) lands on serve's callback.
  const malloryCallback = world.consent(browser.location, "mallory");
  const refused = await fetch(malloryCallback);
  const body = await refused.text();
  // The request reached serve's callback handler (its own refusal, not a 404).
  assertEquals(refused.status, 400);
  assertStringIncludes(body, "this browser did not start the authorization");
  assertStringIncludes(body, "nothing was linked");
  // With a forged cookie too.
  const forged = await fetch(malloryCallback, {
    headers: { cookie: `${browser.cookie.split("=")[0]}=forged-value-of-mallory` },
  });
  assertEquals(forged.status, 400);
  await forged.body?.cancel();
  // Nothing was linked: no code was exchanged, Alice still has no tools of crm.
  assertEquals(world.tokenRequests.filter((r) => r.grant === "authorization_code"), []);
  assertEquals(await alice.names(), ["connect_accounts"]);
  // Alice's own browser still completes her authorization, with her account.
  await alice.call("connect_accounts");
  const fresh = await openLink(alice.shown.at(-1)!.url, { user: "alice", server: "crm" });
  const done = await fetch(world.consent(fresh.location, "alice"), {
    headers: { cookie: fresh.cookie },
  });
  assertEquals(done.status, 200);
  await done.body?.cancel();
  assertEquals(await alice.call("whoami"), "alice");
  assertEquals(world.issued.filter((t) => t.includes("mallory")), []);
  await alice.client.close();
});

Deno.test("a global OAuth server in serve --http: Alice's sign-in is hers only, Bob is asked to sign in himself", async () => {
  await using net = loopbackWorld();
  const { world } = net;
  const port = freePort();
  await using run = await serveWith(
    {
      issuerPort: net.issuerPort,
      config: {
        expose: { builtins: [] },
        mcpServers: { crm: { url: world.mcpUrl } },
        users: { TOKEN_ALICE: { id: "alice" }, TOKEN_BOB: { id: "bob" } },
      },
    },
    { TOKEN_ALICE: "alice-token", TOKEN_BOB: "bob-token" },
    port,
  );
  const alice = await userClient(run.served.url, "alice-token", { urlElicitation: true });
  assertEquals(await alice.names(), ["connect_accounts"]);
  await alice.call("connect_accounts");
  const aliceBrowser = await openLink(alice.shown[0].url, { user: "alice", server: "crm" });
  const landed = await fetch(world.consent(aliceBrowser.location, "alice"), {
    headers: { cookie: aliceBrowser.cookie },
  });
  assertEquals(landed.status, 200);
  await landed.body?.cancel();
  assertEquals(await alice.call("whoami"), "alice");
  const aliceTokens = world.issued.filter((t) => t.startsWith("at-alice-"));
  assertEquals(aliceTokens.length, 1, "Alice's sign-in completed (the attack's premise)");
  // Bob, on the same global server, is not served Alice's account.
  const sentBefore = world.bearers.length;
  const requestsBefore = world.requests.length;
  const bob = await userClient(run.served.url, "bob-token", { urlElicitation: true });
  assertEquals(await bob.names(), ["connect_accounts"]);
  assert(world.requests.length > requestsBefore, "Bob's listing reached the MCP server");
  assertEquals(world.bearers.slice(sentBefore).filter((t) => aliceTokens.includes(t)), []);
  // Bob calls Alice's tool by name anyway: it is not his, and nothing reaches the server as Alice.
  const forced = await bob.client.callTool({ name: "whoami", arguments: {} });
  assert(forced.isError, JSON.stringify(forced));
  assert(!text(forced).includes("alice"));
  assertEquals(world.bearers.slice(sentBefore).filter((t) => aliceTokens.includes(t)), []);
  const asked = await bob.call("connect_accounts");
  assertStringIncludes(asked, "crm: the user was shown the sign-in page");
  assertEquals(bob.shown.length, 1);
  const bobBrowser = await openLink(bob.shown[0].url, { user: "bob", server: "crm" });
  const bobDone = await fetch(world.consent(bobBrowser.location, "bob"), {
    headers: { cookie: bobBrowser.cookie },
  });
  assertEquals(bobDone.status, 200);
  await bobDone.body?.cancel();
  assertEquals(await bob.call("whoami"), "bob");
  assertEquals(await alice.call("whoami"), "alice");
  assertNoLinkIn([...alice.seen, ...bob.seen], [aliceBrowser.location, bobBrowser.location]);
  await alice.client.close();
  await bob.client.close();
});

Deno.test("a client without URL elicitation gets no link in the model's text; the person gets it from /oauth/status with their token", async () => {
  await using net = loopbackWorld();
  const { world } = net;
  const port = freePort();
  await using run = await serveWith(
    {
      issuerPort: net.issuerPort,
      config: {
        expose: { builtins: [] },
        users: {
          TOKEN_ALICE: { id: "alice", mcpServers: { crm: { url: world.mcpUrl } } },
          TOKEN_BOB: { id: "bob" },
        },
      },
    },
    { TOKEN_ALICE: "alice-token", TOKEN_BOB: "bob-token" },
    port,
  );
  const alice = await userClient(run.served.url, "alice-token", { urlElicitation: false });
  const answer = await alice.call("connect_accounts");
  assertStringIncludes(answer, "this MCP client cannot show sign-in pages");
  assertStringIncludes(answer, "/oauth/status");
  const status = `http://127.0.0.1:${port}/oauth/status`;
  const anonymous = await fetch(status);
  assertEquals(anonymous.status, 401);
  await anonymous.body?.cancel();
  const bobs = await fetch(status, { headers: { authorization: "Bearer bob-token" } });
  assertStringIncludes(await bobs.text(), "No MCP server waits for you");
  const page = await fetch(status, { headers: { authorization: "Bearer alice-token" } });
  const link = (await page.text()).match(/crm: (\S+)/)![1];
  assert(link.startsWith(`http://127.0.0.1:${port}/oauth/start?ticket=`), link);
  const browser = await openLink(link, { user: "alice", server: "crm" });
  const done = await fetch(world.consent(browser.location, "alice"), {
    headers: { cookie: browser.cookie },
  });
  assertEquals(done.status, 200);
  await done.body?.cancel();
  assertEquals(await alice.call("whoami"), "alice");
  assertNoLinkIn(alice.seen, [browser.location]);
  await alice.client.close();
});

Deno.test("a global server with oauth.grant client_credentials in toolroute.json shares one service account, explicitly; without users a per-user server says why", async () => {
  const holder: { world?: OAuthWorld } = {};
  const answer = (request: Request) => holder.world!.fetch(request);
  const resource = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, answer);
  const issuer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, answer);
  const world = holder.world = createOAuthWorld({
    resource: `http://127.0.0.1:${resource.addr.port}`,
    issuers: [`http://127.0.0.1:${issuer.addr.port}`],
    clientCredentials: { "svc-id": "service" },
  });
  try {
    const port = freePort();
    await using run = await serveWith(
      {
        issuerPort: issuer.addr.port,
        config: {
          expose: { builtins: [] },
          mcpServers: {
            shared: {
              url: world.mcpUrl,
              oauth: {
                clientId: "svc-id",
                clientSecret: "${SVC_SECRET}",
                grant: "client_credentials",
              },
            },
            personal: { url: world.mcpUrl },
          },
          users: { TOKEN_ALICE: { id: "alice" }, TOKEN_BOB: { id: "bob" } },
        },
      },
      { TOKEN_ALICE: "alice-token", TOKEN_BOB: "bob-token", SVC_SECRET: "s3cret" },
      port,
    );
    const whoami: string[] = [];
    for (const token of ["alice-token", "bob-token"]) {
      const user = await userClient(run.served.url, token, { urlElicitation: false });
      const names = await user.names();
      // Only the shared server has tools before anyone signs in: its names need no prefix.
      assertEquals(names, ["connect_accounts", "echo_token", "fail_echoing_token", "whoami"]);
      whoami.push(await user.call("whoami"));
      await user.client.close();
    }
    assertEquals(whoami, ["service", "service"]);
    assertEquals(
      world.tokenRequests.filter((r) => r.grant === "client_credentials").length,
      1,
      "one service token, shared by configuration",
    );
    assertEquals(world.tokenRequests.filter((r) => r.grant === "authorization_code"), []);
    // The per-user server, exposed at start without a user, says why it is not served.
    assertStringIncludes(run.served.stderr(), 'MCP server "personal" authorizes each user');
  } finally {
    await resource.shutdown();
    await issuer.shutdown();
  }
});
