import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway, type McpGatewayEvent, McpOAuth } from "../../../../../src/core/mcp/mod.ts";
import { MemoryStore } from "../../../../../src/core/store/memory_store.ts";
import { createOAuthWorld, type OAuthWorld } from "../../../../_helpers/oauth_world.ts";

const REDIRECT = "https://host.example.com/oauth/callback";

/** Past half the life of a 1 s token: the next use refreshes it. */
const halfLife = () => new Promise((resolve) => setTimeout(resolve, 600));

/**
 * The authorization URL the host hands to the user, after checking that the model-visible text
 * of the same moment carries neither it nor its `state`.
 */
function urlIn(oauth: McpOAuth, user: string, text: string): string {
  const waiting = oauth.waiting(user);
  if (waiting.length !== 1) throw new Error(`No authorization URL for ${user}`);
  const url = waiting[0].authorizationUrl;
  assert(!/https?:/.test(text), `a URL reached the model: ${text}`);
  assert(!text.includes(new URL(url).searchParams.get("state")!), "the state reached the model");
  assertStringIncludes(text, "Authorization required");
  return url;
}

function whoamiOf(toolSet: { names: readonly string[] }): string {
  return toolSet.names.find((name) => name.includes("whoami"))!;
}

/** `user`'s tools of `crm`, after signing in as that user when asked (a global `crm`). */
async function signedIn(
  at: { router: ToolRouter; oauth: McpOAuth; world: OAuthWorld },
  user: string,
) {
  const asked = await at.router.expose({ mcpServers: ["crm"], userId: user });
  const url = urlIn(at.oauth, user, asked.missing[0].reason);
  await at.oauth.complete(user, "crm", at.world.consent(url, user));
  return await at.router.expose({ mcpServers: ["crm"], userId: user });
}

function setup(world: OAuthWorld, extra: { allowedHosts?: string[]; store?: MemoryStore } = {}) {
  const events: McpGatewayEvent[] = [];
  const oauth = new McpOAuth({
    redirectUrl: REDIRECT,
    ...(extra.store ? { store: extra.store } : {}),
  });
  const gateway = new McpGateway({
    fetch: world.fetch,
    ...(extra.allowedHosts ? { allowedHosts: extra.allowedHosts } : {}),
    oauth,
    onEvent: (event) => events.push(event),
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  for (const user of ["alice", "bob"]) gateway.addUserServer(user, "crm", { url: world.mcpUrl });
  const router = new ToolRouter({ gateway });
  /** Exposes the user's tools, authorizing once as `login` when asked. */
  async function signIn(user: string, login = user) {
    const first = await router.expose({ mcpServers: ["crm"], userId: user });
    assertEquals(first.names, []);
    assertStringIncludes(first.missing[0].reason, "Authorization required");
    // The same URL, structured, for a host's "Connect" link.
    const callback = world.consent(urlIn(oauth, user, first.missing[0].reason), login);
    await oauth.complete(user, "crm", callback);
    assertEquals(oauth.waiting(user), []);
    return await router.expose({ mcpServers: ["crm"], userId: user });
  }
  return { gateway, oauth, router, events, signIn };
}

Deno.test("two users authorising the same server get different tokens, and each call carries its own", async () => {
  const world = createOAuthWorld();
  const { gateway, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  const bob = await signIn("bob");
  assertEquals(alice.missing, []);
  const whoami = alice.names.find((name) => name.includes("whoami"))!;
  const before = world.bearers.length;
  assertEquals((await alice.call(whoami, {})).text, "alice");
  assertEquals((await bob.call(whoami, {})).text, "bob");
  assertEquals((await alice.call(whoami, {})).text, "alice");
  const carried = world.bearers.slice(before);
  assert(
    carried.some((t) => t.startsWith("at-alice-")) && carried.some((t) => t.startsWith("at-bob-")),
  );
  // Each user's connection only ever sent that user's token.
  const aliceTokens = new Set(world.bearers.filter((t) => t.startsWith("at-alice-")));
  const bobTokens = new Set(world.bearers.filter((t) => t.startsWith("at-bob-")));
  assertEquals([...aliceTokens].filter((t) => bobTokens.has(t)), []);
  // Each (user, server) registered its own client.
  assertEquals(world.registrations.length, 2);
});

Deno.test("in the 2026-07-28 era too, two users authorising a server each call with their own token", async () => {
  const world = createOAuthWorld({ era: "2026-07-28" });
  const { gateway, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  const bob = await signIn("bob");
  assertEquals(alice.missing, []);
  const whoami = alice.names.find((name) => name.includes("whoami"))!;
  const [a, b] = await Promise.all([alice.call(whoami, {}), bob.call(whoami, {})]);
  assertEquals([a.text, b.text], ["alice", "bob"]);
  // The authorized requests were of the modern era: server/discover, never initialize.
  assert(world.methods.includes("server/discover"), world.methods.join());
  assertEquals(world.methods.filter((m) => m === "initialize"), []);
  assertEquals(gateway.status().map((s) => s.protocol), ["2026-07-28", "2026-07-28"]);
});

Deno.test("complete() refuses a callback of another user, a reused state and a wrong iss", async () => {
  const world = createOAuthWorld();
  const { gateway, oauth, router } = setup(world);
  await using _ = gateway;
  const exposed = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  const aliceCallback = world.consent(urlIn(oauth, "alice", exposed.missing[0].reason), "alice");
  let refused = 0;
  // Bob's session cannot complete Alice's authorization (and burns the state).
  await assertRejects(
    () => oauth.complete("bob", "crm", aliceCallback),
    TypeError,
    "another user or server",
  ).then(() => refused++);
  await assertRejects(
    () => oauth.complete("alice", "crm", aliceCallback),
    TypeError,
    "completed already",
  ).then(() => refused++);
  // A fresh authorization whose redirect names another issuer (RFC 9207 mix-up defence).
  const again = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  const mixedUp = world.consent(urlIn(oauth, "alice", again.missing[0].reason), "alice", {
    iss: "https://evil.example.com",
  });
  await assertRejects(
    () => oauth.complete("alice", "crm", mixedUp),
    TypeError,
    '"iss"',
  ).then(() => refused++);
  await assertRejects(
    () => oauth.complete("alice", "crm", "https://elsewhere.example.com/cb?state=x"),
    TypeError,
    "redirect URI",
  ).then(() => refused++);
  assertEquals(refused, 4);
  // No code was exchanged by any of them.
  assertEquals(world.tokenRequests.length, 0);
});

Deno.test("a revoked refresh token asks the user again, once, without a refresh loop", async () => {
  // Tokens live 1 s and are refreshed at half their life.
  const world = createOAuthWorld({ expiresIn: 1 });
  const { gateway, oauth, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  const whoami = whoamiOf(alice);
  await halfLife();
  assertEquals((await alice.call(whoami, {})).text, "alice");
  const refreshes = () => world.tokenRequests.filter((r) => r.grant === "refresh_token").length;
  assert(refreshes() >= 1, "the token was refreshed before expiry");
  world.revokeRefreshTokens();
  await halfLife();
  const before = refreshes();
  const result = await alice.call(whoami, {});
  assert(result.isError);
  assertMatch(result.text, /Authorization required for MCP server "crm"/);
  assertEquals(refreshes() - before, 1, "one refresh attempt, then the user is asked");
  // Authorizing again works.
  await oauth.complete(
    "alice",
    "crm",
    world.consent(urlIn(oauth, "alice", result.text), "alice"),
  );
  assertEquals((await alice.call(whoami, {})).text, "alice");
});

Deno.test("a server that refuses even a refreshed token asks the user again after one refresh", async () => {
  const world = createOAuthWorld();
  const { gateway, oauth, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  world.refuseBearers(true);
  const before = world.tokenRequests.length;
  const result = await alice.call(whoamiOf(alice), {});
  assert(result.isError);
  assertMatch(result.text, /Authorization required for MCP server "crm": the user must sign in/);
  const refreshes = world.tokenRequests.slice(before).filter((r) => r.grant === "refresh_token");
  assertEquals(refreshes.length, 1, "one refresh, then the user is asked");
  world.refuseBearers(false);
  await oauth.complete(
    "alice",
    "crm",
    world.consent(urlIn(oauth, "alice", result.text), "alice"),
  );
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
});

Deno.test("an issuer switch never presents the old credentials to the new authorization server", async () => {
  const world = createOAuthWorld();
  const { gateway, oauth, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  const oldRefresh = world.issued.filter((t) => t.startsWith("rt-"));
  const oldClients = world.registrations.map((r) => r.clientId);
  world.switchIssuer("https://auth2.example.com");
  const result = await alice.call(whoamiOf(alice), {});
  assert(result.isError);
  const url = urlIn(oauth, "alice", result.text);
  assert(url.startsWith("https://auth2.example.com/authorize"), url);
  assert(!oldClients.includes(new URL(url).searchParams.get("client_id")!));
  const toNew = world.tokenRequests.filter((r) => r.issuer === "https://auth2.example.com");
  assertEquals(toNew.filter((r) => oldRefresh.includes(r.refreshToken ?? "")), []);
  assertEquals(world.registrations.at(-1)?.issuer, "https://auth2.example.com");
  await oauth.complete("alice", "crm", world.consent(url, "alice"));
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
});

Deno.test("concurrent calls during a refresh refresh once", async () => {
  const world = createOAuthWorld({ expiresIn: 1, tokenDelayMs: 50 });
  const { gateway, signIn } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  await halfLife();
  const before = world.tokenRequests.length;
  const results = await Promise.all(
    Array.from({ length: 6 }, () => alice.call(whoamiOf(alice), {})),
  );
  assertEquals(results.map((r) => r.text), Array(6).fill("alice"));
  const refreshes = world.tokenRequests.slice(before).filter((r) => r.grant === "refresh_token");
  assertEquals(refreshes.length, 1);
});

Deno.test("tokens never appear in events, status() or results", async () => {
  const world = createOAuthWorld({ expiresIn: 1 });
  const { gateway, signIn, events } = setup(world);
  await using _ = gateway;
  const alice = await signIn("alice");
  await halfLife();
  const texts = [(await alice.call(whoamiOf(alice), {})).text];
  // A server that echoes the token in an error does not put it in front of the model.
  const leak = await alice.call(alice.names.find((name) => name.includes("fail_echoing"))!, {});
  assert(leak.isError);
  assertStringIncludes(leak.text, "Token [redacted] lacks a permission");
  texts.push(leak.text);
  // Nor in a successful result, in any block or its structured content, after a refresh too.
  const echoToken = alice.names.find((name) => name.includes("echo_token"))!;
  const echoed = await alice.call(echoToken, {});
  assertEquals(
    echoed.text,
    "Token [redacted]\n\n[resource link: https://crm.example/?token=[redacted] (token)]",
  );
  assertEquals(echoed.structuredContent, { token: "[redacted]" });
  texts.push(JSON.stringify(echoed));
  await halfLife();
  const refreshed = await alice.call(echoToken, {});
  assertEquals(refreshed.structuredContent, { token: "[redacted]" });
  texts.push(JSON.stringify(refreshed));
  world.revokeRefreshTokens();
  await halfLife();
  texts.push((await alice.call(whoamiOf(alice), {})).text);
  const seen = JSON.stringify([events, gateway.status(), texts]);
  assert(world.issued.length >= 4);
  for (const token of world.issued) assert(!seen.includes(token), `token ${token} leaked`);
  assert(events.some((e) => e.type === "connect_failed" && e.message === "Authorization required"));
  assertStringIncludes(texts.at(-1)!, "Authorization required");
});

Deno.test("authorization server URLs outside allowedHosts, or private, are refused", async () => {
  const world = createOAuthWorld();
  const { gateway, router } = setup(world, { allowedHosts: ["mcp.example.com"] });
  await using _ = gateway;
  const exposed = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertStringIncludes(exposed.missing[0].reason, "allowedHosts");
  assertEquals(world.requests.filter((u) => u.startsWith("https://auth.")), []);
  // A resource pointing at a private address, with no allowlist.
  const inner = createOAuthWorld({ issuers: ["https://auth.example.com", "https://10.1.2.3"] });
  inner.switchIssuer("https://10.1.2.3");
  const second = setup(inner);
  await using __ = second.gateway;
  const refused = await second.router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertStringIncludes(refused.missing[0].reason, "private");
  assertEquals(inner.requests.filter((u) => u.startsWith("https://10.")), []);
});

Deno.test("tokens kept in a shared store serve a second gateway, per user only", async () => {
  const world = createOAuthWorld();
  const store = new MemoryStore();
  const first = setup(world, { store });
  await first.signIn("alice");
  await first.gateway.close();
  const second = setup(world, { store });
  await using _ = second.gateway;
  const alice = await second.router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertEquals(alice.missing, []);
  const bob = await second.router.expose({ mcpServers: ["crm"], userId: "bob" });
  assertStringIncludes(bob.missing[0].reason, "Authorization required");
  await second.oauth.forget("alice", "crm");
  assertEquals(await store.list(["oauth", "tokens", "alice"]), []);
});

Deno.test("new McpOAuth() checks its options, and one McpOAuth serves one gateway", async () => {
  assertThrows(() => new McpOAuth({ redirectUrl: "not a url" }), TypeError, '"redirectUrl"');
  assertThrows(
    () => new McpOAuth({ redirectUrl: REDIRECT, clientMetadataUrl: "http://x.example.com/c" }),
    TypeError,
    '"clientMetadataUrl"',
  );
  assertThrows(() => new McpOAuth({ redirectUrl: REDIRECT, stateTtlMs: -1 }), RangeError);
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const first = new McpGateway({ oauth });
  assertThrows(() => new McpGateway({ oauth }), TypeError, "serves another gateway");
  // A plain options object where a McpOAuth belongs.
  assertThrows(
    () => new McpGateway({ oauth: { redirectUrl: REDIRECT } as unknown as McpOAuth }),
    TypeError,
    "must be a McpOAuth",
  );
  await first.close();
});

Deno.test("a global server behind OAuth is authorized per user: after Alice signs in, Bob's calls never carry her token", async () => {
  const world = createOAuthWorld();
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({
    fetch: world.fetch,
    servers: { crm: { url: world.mcpUrl } },
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  await using _ = gateway;
  const router = new ToolRouter({ gateway });
  const expose = (userId?: string) => router.expose({ mcpServers: ["crm"], userId });
  // The attack: Alice signs in first, on the global server.
  const asked = await expose("alice");
  const callback = world.consent(urlIn(oauth, "alice", asked.missing[0].reason), "alice");
  await oauth.complete("alice", "crm", callback);
  const alice = await expose("alice");
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
  const aliceTokens = world.issued.filter((t) => t.startsWith("at-alice-"));
  assertEquals(aliceTokens.length, 1, "Alice's sign-in completed: the attack's first half ran");
  // Bob, on the same global server, is asked to sign in himself; nothing of his carries hers.
  const sentBefore = world.bearers.length;
  const bob = await expose("bob");
  assertEquals(bob.names, []);
  urlIn(oauth, "bob", bob.missing[0].reason);
  assert(world.requests.length > 0);
  assertEquals(world.bearers.slice(sentBefore).filter((t) => aliceTokens.includes(t)), []);
  // Bob signs in with his own account; each call carries its caller's token.
  await oauth.complete(
    "bob",
    "crm",
    world.consent(oauth.waiting("bob")[0].authorizationUrl, "bob"),
  );
  const bobs = await expose("bob");
  assertEquals((await bobs.call(whoamiOf(bobs), {})).text, "bob");
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
  // No user id: a clear refusal, and no authorization is started for "everyone".
  const anonymous = await expose();
  assertEquals(anonymous.names, []);
  assertStringIncludes(anonymous.missing[0].reason, "authorizes each user");
  assertEquals(oauth.waiting(), []);
});

Deno.test("a global server with a client_credentials client shares one service account, explicitly", async () => {
  const world = createOAuthWorld({ clientCredentials: { "svc-id": "svc" } });
  const oauth = new McpOAuth({
    redirectUrl: REDIRECT,
    clients: {
      crm: { clientId: "svc-id", clientSecret: "svc-secret", grant: "client_credentials" },
    },
  });
  const gateway = new McpGateway({
    fetch: world.fetch,
    servers: { crm: { url: world.mcpUrl } },
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  await using _ = gateway;
  const router = new ToolRouter({ gateway });
  const results: string[] = [];
  for (const userId of ["alice", "bob", undefined]) {
    const toolSet = await router.expose({ mcpServers: ["crm"], userId });
    assertEquals(toolSet.missing, []);
    results.push((await toolSet.call(whoamiOf(toolSet), {})).text);
  }
  assertEquals(results, ["svc", "svc", "svc"]);
  assertEquals(world.tokenRequests.map((r) => r.grant), ["client_credentials"]);
  assertEquals(oauth.waiting("alice"), []);
});

Deno.test("a user's own server with a global server's id never gets the user's token for the global one", async () => {
  const world = createOAuthWorld();
  // A server of Alice's own config, at another URL, naming the global server's authorization
  // server in its metadata.
  const evil = createOAuthWorld({
    resource: "https://evil.example.com",
    issuers: ["https://auth.example.com"],
  });
  const fetch =
    ((input: string | URL | Request, init?: RequestInit) =>
      new URL(input instanceof Request ? input.url : input).origin === "https://evil.example.com"
        ? evil.fetch(input, init)
        : world.fetch(input, init)) as typeof globalThis.fetch;
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({
    fetch,
    servers: { crm: { url: world.mcpUrl } },
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  await using _ = gateway;
  const router = new ToolRouter({ gateway });
  const alice = await signedIn({ router, oauth, world }, "alice");
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
  const aliceTokens = world.issued.filter((t) => t.startsWith("at-alice-"));
  // Alice's own server of the same id, at the other URL, is reached (the attack ran)...
  gateway.addUserServer("alice", "crm", { url: evil.mcpUrl });
  await router.expose({ mcpServers: ["crm"], userId: "alice" });
  assert(evil.requests.some((url) => url.startsWith("https://evil.example.com/mcp")));
  // ...and carries none of her tokens for the global one.
  assertEquals(evil.bearers.filter((t) => aliceTokens.includes(t)), []);
});

Deno.test("a ticket's first hop binds the browser: a callback without its cookie is refused before anything is used up", async () => {
  const world = createOAuthWorld();
  const { gateway, oauth, router } = setup(world);
  await using _ = gateway;
  const asked = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  urlIn(oauth, "alice", asked.missing[0].reason);
  const ticket = (await oauth.ticket("alice", "crm"))!;
  const hop = (await oauth.redeemTicket(ticket))!;
  assertEquals([hop.user, hop.serverId], ["alice", "crm"]);
  assertEquals(await oauth.redeemTicket(ticket), undefined, "single-use");
  // The leaked URL, opened by someone else, comes back without the cookie, or with a guess.
  const leaked = world.consent(hop.location, "mallory");
  for (const binding of ["", "a-guess"]) {
    await assertRejects(
      () => oauth.complete("alice", "crm", leaked, { binding }),
      TypeError,
      "this browser did not start the authorization",
    );
  }
  assertEquals(world.tokenRequests, [], "no code was exchanged");
  // The browser that redeemed the ticket completes it: the state was not used up.
  const own = world.consent(hop.location, "alice");
  await oauth.complete("alice", "crm", own, { binding: hop.binding });
  const alice = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice");
});

Deno.test("a user's own oauth client (a service account) never signs in another user's server of the same id and URL", async () => {
  const world = createOAuthWorld({ clientCredentials: { "alice-svc-id": "alice-svc" } });
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({
    fetch: world.fetch,
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  await using _ = gateway;
  // Alice's own entry carries her service account; Bob's entry of the same id and URL has none.
  gateway.addUserServer("alice", "crm", {
    url: world.mcpUrl,
    oauth: { clientId: "alice-svc-id", clientSecret: "alice-secret", grant: "client_credentials" },
  });
  gateway.addUserServer("bob", "crm", { url: world.mcpUrl });
  const router = new ToolRouter({ gateway });
  const alice = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertEquals((await alice.call(whoamiOf(alice), {})).text, "alice-svc");
  const reachedBefore = world.requests.filter((url) => url === world.mcpUrl).length;
  const bob = await router.expose({ mcpServers: ["crm"], userId: "bob" });
  // The attack ran: Bob's own connection really went to the server after Alice's was signed in.
  assert(world.requests.filter((url) => url === world.mcpUrl).length > reachedBefore);
  // Bob is asked to sign in himself; no token was fetched with Alice's secret for him.
  assertEquals(bob.names.filter((name) => name.includes("whoami")), []);
  assertStringIncludes(bob.missing[0].reason, "Authorization required");
  assertEquals(world.tokenRequests.map((r) => [r.grant, r.clientId]), [
    ["client_credentials", "alice-svc-id"],
  ]);
  assertEquals(oauth.waiting("bob").length, 1);
});

Deno.test("a user not signed in to a global server that authorizes each user is not given another user's tool names for it", async () => {
  const world = createOAuthWorld();
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({
    fetch: world.fetch,
    servers: { crm: { url: world.mcpUrl } },
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  await using _ = gateway;
  const router = new ToolRouter({ gateway });
  // The attack ran: Alice's own session listed the server's tools under her sign-in.
  const alice = await signedIn({ router, oauth, world }, "alice");
  const aliceNames = alice.names.filter((name) => name.includes("whoami"));
  assertEquals(aliceNames.length, 1);
  // Bob, not signed in, is asked to sign in, and is not told which tools Alice's session listed.
  const bob = await router.expose({ mcpServers: ["crm"], userId: "bob" });
  const entry = bob.missing.find((m) => m.name === "crm");
  assertStringIncludes(entry?.reason ?? "", "Authorization required");
  assertEquals(entry?.tools, undefined);
  assertEquals((await bob.call(aliceNames[0], {})).code, "unknown_tool");
  // Alice's own names are still hers.
  const aliceAgain = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertEquals(aliceAgain.names.filter((name) => name.includes("whoami")), aliceNames);
});

Deno.test("a user's own session of a global server that arrives late is announced as that user's change only", async () => {
  const world = createOAuthWorld();
  let slow = false;
  // The MCP server answers slowly while `slow`: a request stops waiting for it (listWaitMs).
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (slow && url.href === world.mcpUrl) await new Promise((r) => setTimeout(r, 300));
    return await world.fetch(input, init);
  }) as typeof globalThis.fetch;
  const events: McpGatewayEvent[] = [];
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({
    fetch,
    servers: { crm: { url: world.mcpUrl } },
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
    listWaitMs: 50,
    onEvent: (event) => events.push(event),
  });
  await using _ = gateway;
  const router = new ToolRouter({ gateway });
  // On a loaded machine the discovery before the server asks Alice to authorize can outlast
  // listWaitMs: the list is asked for again until it has asked (then says so at once).
  let asked = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  for (let tries = 0; !/Authorization required/.test(asked.missing[0]?.reason ?? ""); tries++) {
    if (tries === 200) throw new Error("the server never asked Alice to authorize");
    await new Promise((r) => setTimeout(r, 25));
    asked = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  }
  await oauth.complete(
    "alice",
    "crm",
    world.consent(urlIn(oauth, "alice", asked.missing[0].reason), "alice"),
  );
  slow = true;
  const early = await router.expose({ mcpServers: ["crm"], userId: "alice" });
  // The attack ran: Alice's tool list was answered without her session, which arrived later.
  assertEquals(early.names.filter((name) => name.includes("whoami")), []);
  while (!events.some((e) => e.type === "tools_changed" && e.message?.includes("ready after"))) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const arrived = events.filter((e) => e.type === "tools_changed" && e.message?.includes("ready"));
  // Announced for Alice alone (`serve` tells only her clients), not as every user's change.
  assertEquals(arrived.map((e) => [e.serverId, (e as { userId?: string }).userId]), [[
    "crm",
    "alice",
  ]]);
});
