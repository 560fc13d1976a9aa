import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway, McpOAuth } from "../../../../../src/core/mcp/mod.ts";
import { MemoryStore } from "../../../../../src/core/store/memory_store.ts";
import { createOAuthWorld, type OAuthWorld } from "../../../../_helpers/oauth_world.ts";

const REDIRECT = "https://host.example.com/oauth/callback";

function gatewayOn(world: OAuthWorld, store: MemoryStore, storeKey: Uint8Array) {
  const oauth = new McpOAuth({ redirectUrl: REDIRECT, store, storeKey });
  const gateway = new McpGateway({
    fetch: world.fetch,
    oauth,
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 2 },
  });
  gateway.addUserServer("alice", "crm", { url: world.mcpUrl });
  return { gateway, oauth, router: new ToolRouter({ gateway }) };
}

Deno.test("McpOAuth with storeKey keeps tokens sealed in its store; the same key reads them in another gateway", async () => {
  const world = createOAuthWorld();
  const store = new MemoryStore();
  const key = crypto.getRandomValues(new Uint8Array(32));
  const first = gatewayOn(world, store, key);
  const asked = await first.router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertStringIncludes(asked.missing[0].reason, "Authorization required");
  const url = first.oauth.waiting("alice")[0].authorizationUrl;
  await first.oauth.complete("alice", "crm", world.consent(url, "alice"));
  const signedIn = await first.router.expose({ mcpServers: ["crm"], userId: "alice" });
  assertEquals(signedIn.missing, [], "the sign-in really happened");
  await first.gateway.close();

  const kept = await store.list(["oauth"]);
  const tokens = kept.filter((entry) => entry.key[1] === "tokens");
  assert(tokens.length > 0, "tokens were stored");
  for (const entry of kept) {
    assertEquals((entry.value as { sealed?: string }).sealed, "aes-256-gcm", entry.key.join("/"));
    assert(!JSON.stringify(entry.value).includes("access_token"), "no token field in the clear");
  }

  const second = gatewayOn(world, store, key);
  await using _ = second.gateway;
  assertEquals(
    (await second.router.expose({ mcpServers: ["crm"], userId: "alice" })).missing,
    [],
    "the same key opens the tokens",
  );
});
