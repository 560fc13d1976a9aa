import { assertEquals, assertRejects } from "@std/assert";
import { oauthRequestFetch } from "../../../../../src/core/mcp/gateway/oauth/oauth_request_fetch.ts";

const SERVER = new URL("https://mcp.example.com/mcp");

/** A fetch that records what reached it and answers with `answer`. */
function recording(answer: (url: URL) => Response) {
  const reached: string[] = [];
  const fetch = (input: string | URL | Request): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    reached.push(url.href);
    return Promise.resolve(answer(url));
  };
  return { reached, fetch: fetch as typeof globalThis.fetch };
}

Deno.test("oauthRequestFetch() refuses a redirect to another origin and passes one within the origin to the SDK", async () => {
  const inner = recording((url) =>
    url.pathname === "/away"
      ? new Response(null, { status: 302, headers: { location: "https://evil.example.com/x" } })
      : new Response(null, { status: 302, headers: { location: "/.well-known/other" } })
  );
  const guarded = oauthRequestFetch({ fetch: inner.fetch, serverUrl: SERVER });
  await assertRejects(
    () => guarded("https://auth.example.com/away"),
    Error,
    "redirect (HTTP 302), which is not followed",
  );
  assertEquals((await guarded("https://auth.example.com/here")).status, 302);
  assertEquals(inner.reached.length, 2);
});

Deno.test("oauthRequestFetch() follows allowedHosts, and without them refuses private addresses other than the server's", async () => {
  const inner = recording(() => Response.json({}));
  const listed = oauthRequestFetch({
    fetch: inner.fetch,
    serverUrl: SERVER,
    allowedHosts: ["mcp.example.com", "auth.example.com"],
  });
  await listed("https://auth.example.com/.well-known/oauth-authorization-server");
  await assertRejects(() => listed("https://other.example.com/token"), Error, "allowedHosts");
  const open = oauthRequestFetch({ fetch: inner.fetch, serverUrl: SERVER });
  let refused = 0;
  for (const url of ["https://10.0.0.8/token", "https://192.168.1.1/", "https://[fd00::1]/"]) {
    await assertRejects(() => open(url), Error, "private").then(() => refused++);
  }
  await assertRejects(() => open("http://auth.example.com/token"), Error, "only https");
  assertEquals(refused, 3);
  // The MCP server's own loopback host is trusted (a local server and its local issuer).
  const local = oauthRequestFetch({
    fetch: inner.fetch,
    serverUrl: new URL("http://127.0.0.1:9/mcp"),
  });
  await local("http://127.0.0.1:10/.well-known/oauth-authorization-server");
  assertEquals(inner.reached, [
    "https://auth.example.com/.well-known/oauth-authorization-server",
    "http://127.0.0.1:10/.well-known/oauth-authorization-server",
  ]);
});
