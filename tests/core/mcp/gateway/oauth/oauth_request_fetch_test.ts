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

Deno.test("oauthRequestFetch() refuses every spelling of a private or loopback host, read on the parsed address", async () => {
  const inner = recording(() => Response.json({}));
  const open = oauthRequestFetch({ fetch: inner.fetch, serverUrl: SERVER });
  const forms = [
    "https://localhost./token",
    "https://localhost../token",
    "https://api.localhost./token",
    "https://LOCALHOST/token",
    "https://[::7f00:1]/token", // IPv4-compatible 127.0.0.1
    "https://[::ffff:127.0.0.1]/token",
    "https://[::ffff:7f00:1]/token",
    "https://[0:0:0:0:0:ffff:a9fe:a9fe]/token", // mapped 169.254.169.254
    "https://[::ffff:0:7f00:1]/token", // SIIT
    "https://[64:ff9b::a9fe:a9fe]/token", // NAT64 of the metadata address
    "https://[2002:7f00:1::]/token", // 6to4 of loopback
    "https://[::1]/token",
    "https://[::]/token",
    "https://[fe80::1]/token",
    "https://[fc00::1]/token",
    "https://0177.0.0.1/token", // octal
    "https://0x7f.1/token", // hex, short
    "https://2130706433/token", // decimal
    "https://127.1/token", // short
    "https://0.0.0.0/token",
    "https://0/token",
    "https://169.254.169.254/token",
    "https://0xa9.0xfe.0xa9.0xfe/token",
    "https://100.64.0.1/token",
    "https://172.31.255.255/token",
    "https://224.0.0.1/token",
    "https://255.255.255.255/token",
  ];
  const refused: string[] = [];
  for (const url of forms) {
    // Each URL really is handed to the guarded fetch, as the SDK would hand it.
    await assertRejects(() => open(url), Error, "Refusing authorization URL").then(() =>
      refused.push(url)
    );
  }
  assertEquals(refused, forms);
  assertEquals(inner.reached, [], "no private spelling reached the network");
  // Public addresses still pass, in every spelling the parser reads.
  await open("https://8.8.8.8/token");
  await open("https://[2606:4700::1111]/token");
  await open("https://134744072/token");
  assertEquals(inner.reached, [
    "https://8.8.8.8/token",
    "https://[2606:4700::1111]/token",
    "https://8.8.8.8/token",
  ]);
});

Deno.test("oauthRequestFetch() allows plain http only to loopback, whatever its spelling, and to the server's own host only", async () => {
  const inner = recording(() => Response.json({}));
  const local = oauthRequestFetch({
    fetch: inner.fetch,
    serverUrl: new URL("http://127.0.0.1:9/mcp"),
  });
  // The server's own host, spelt another way, is still its own host.
  await local("http://0177.0.0.1:10/.well-known/oauth-authorization-server");
  // Another loopback or private host than the server's is refused.
  await assertRejects(() => local("http://localhost./x"), Error, "private");
  await assertRejects(() => local("http://[::ffff:7f00:2]/x"), Error, "private");
  await assertRejects(() => local("http://10.0.0.1/x"), Error, "only https");
  assertEquals(inner.reached, ["http://127.0.0.1:10/.well-known/oauth-authorization-server"]);
});
