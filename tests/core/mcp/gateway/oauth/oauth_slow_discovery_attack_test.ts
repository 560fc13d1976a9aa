/**
 * A hostile MCP server against the gateway's OAuth discovery: its protected-resource metadata
 * sends its headers, then holds the body open (a byte now and then, far below the size bound).
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway, McpOAuth } from "../../../../../src/core/mcp/mod.ts";
import { createOAuthWorld } from "../../../../_helpers/oauth_world.ts";

const REDIRECT = "https://host.example.com/oauth/callback";

/** A fetch whose protected-resource metadata drips a byte every 50 ms; what it saw. */
function drippingMetadata(world: ReturnType<typeof createOAuthWorld>) {
  const seen = { asked: 0, cancelled: false, stop: () => {} };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname.startsWith("/.well-known/oauth-protected-resource")) {
      seen.asked++;
      let timer: ReturnType<typeof setInterval> | undefined;
      seen.stop = () => clearInterval(timer);
      const drip = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode(" ")), 50);
        },
        cancel() {
          seen.cancelled = true;
          clearInterval(timer);
        },
      });
      return new Response(drip, { headers: { "content-type": "application/json" } });
    }
    return await world.fetch(request);
  };
  return { fetch, seen };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
}

Deno.test("a metadata body held open by the server does not outlive the gateway's close", async () => {
  const world = createOAuthWorld();
  const { fetch, seen } = drippingMetadata(world);
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({ fetch, oauth, listWaitMs: 300 });
  try {
    gateway.addUserServer("alice", "crm", { url: world.mcpUrl });
    const router = new ToolRouter({ gateway });
    await router.expose({ mcpServers: ["crm"], userId: "alice" });
    await router.close();
  } finally {
    await gateway.close();
  }
  await until(() => seen.cancelled);
  seen.stop();
  // The attack ran: the gateway asked for the metadata and got the held body.
  assert(seen.asked > 0, "the metadata was asked for");
  assert(seen.cancelled, "the held metadata body is still being read after close()");
});

Deno.test("a metadata body held open by the server ends at the gateway's connect deadline, before close", async () => {
  const world = createOAuthWorld();
  const { fetch, seen } = drippingMetadata(world);
  const oauth = new McpOAuth({ redirectUrl: REDIRECT });
  const gateway = new McpGateway({ fetch, oauth, listWaitMs: 300, connectTimeoutMs: 500 });
  try {
    gateway.addUserServer("alice", "crm", { url: world.mcpUrl });
    const router = new ToolRouter({ gateway });
    const first = await router.expose({ mcpServers: ["crm"], userId: "alice" });
    assertEquals(first.tools.length, 0);
    // Without a deadline of its own the held body is read until close(): the user's requests to
    // that server wait behind it.
    await until(() => seen.cancelled);
    assert(seen.asked > 0, "the metadata was asked for");
    assert(seen.cancelled, "the held metadata body was still being read with the gateway open");
    await router.close();
  } finally {
    seen.stop();
    await gateway.close();
  }
});
