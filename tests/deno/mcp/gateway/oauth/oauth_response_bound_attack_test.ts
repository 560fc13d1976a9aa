/**
 * A hostile MCP server (or the authorization server it names) against the bound of the OAuth
 * requests' answers: its protected-resource metadata is a JSON body of undeclared length
 * (chunked), far over 1 MiB, read by the SDK's own discovery through `oauthRequestFetch`.
 *
 * @module
 */

import { assert, assertMatch, assertRejects } from "@std/assert";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/client";
import { oauthRequestFetch } from "../../../../../src/core/mcp/gateway/oauth/oauth_request_fetch.ts";

const SENT = 8 * 1024 * 1024;

Deno.test("protected-resource metadata of undeclared length is cut at 1 MiB, not read whole by the SDK's discovery", async () => {
  let sent = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    const encoder = new TextEncoder();
    const padding = encoder.encode(`"${"x".repeat(65_534)}",`);
    let started = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!started) {
          started = true;
          return controller.enqueue(encoder.encode('{"resource":"x","pad":['));
        }
        if (sent >= SENT) {
          controller.enqueue(encoder.encode('""]}'));
          return controller.close();
        }
        sent += padding.byteLength;
        controller.enqueue(padding);
      },
    });
    // No content-length: the runtime sends it chunked.
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  const serverUrl = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  try {
    const fetchFn = oauthRequestFetch({ serverUrl });
    const error = await assertRejects(() =>
      discoverOAuthProtectedResourceMetadata(serverUrl, {
        resourceMetadataUrl: new URL("/.well-known/oauth-protected-resource", serverUrl),
      }, fetchFn)
    );
    assertMatch(String(error), /larger than 1 MiB/);
    // The attack ran: the server streamed past the bound, and the read stopped well short of
    // what it would have sent.
    assert(sent > 1024 * 1024 && sent < SENT, `${sent} bytes sent`);
  } finally {
    await server.shutdown();
  }
});
