import { assert, assertEquals, assertMatch } from "@std/assert";
import { serveBounded } from "../../../src/deno/cli/bounded_http_server.ts";

async function withServer(
  handler: (request: Request) => Response | Promise<Response>,
  run: (port: number, server: ReturnType<typeof serveBounded>) => Promise<void>,
  bounds = { maxConnections: 16, headTimeoutMs: 5_000, maxConnectionsPerUser: 8 },
): Promise<void> {
  const controller = new AbortController();
  const server = serveBounded({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    ...bounds,
  }, handler);
  try {
    await run(server.addr.port, server);
  } finally {
    controller.abort();
    await server.finished;
  }
}

async function raw(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  let text = "";
  for await (const chunk of conn.readable) text += new TextDecoder().decode(chunk);
  return text;
}

const echo = async (request: Request) =>
  new Response(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`, {
    headers: { "x-host": request.headers.get("host") ?? "" },
  });

Deno.test("serveBounded() serves fetch, with Content-Length and chunked bodies, one request per connection", async () => {
  await withServer(echo, async (port) => {
    const response = await fetch(`http://127.0.0.1:${port}/a?b`, { method: "POST", body: "hi" });
    assertEquals(await response.text(), "POST /a hi");
    assertEquals(response.headers.get("connection"), "close");
    const chunked = await raw(
      port,
      "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
    );
    assertMatch(chunked, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nPOST \/c abcde$/);
    const expect = await raw(
      port,
      "POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
    );
    assertMatch(expect, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });
});

Deno.test("serveBounded() refuses ambiguous or malformed requests without calling the handler", async () => {
  let called = 0;
  await withServer(() => {
    called++;
    return new Response("no");
  }, async (port) => {
    const both = await raw(
      port,
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    );
    assertMatch(both, /^HTTP\/1\.1 400 /);
    assertMatch(
      await raw(port, "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"),
      /^HTTP\/1\.1 501 /,
    );
    assertMatch(await raw(port, "GET / HTTP/1.1\r\n\r\n"), /^HTTP\/1\.1 400 /); // no Host
    assertMatch(
      await raw(port, "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"),
      /^HTTP\/1\.1 400 /,
    );
    assertMatch(await raw(port, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), /^HTTP\/1\.1 505 /);
    for (const host of ["127.0.0.1:1@evil.example", "127.0.0.1/x", "a b", "x?y"]) {
      assertMatch(
        await raw(port, `GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
        /^HTTP\/1\.1 400 /,
        host,
      );
    }
    assertMatch(
      await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX: ${"a".repeat(70_000)}\r\n\r\n`),
      /^HTTP\/1\.1 431 /,
    );
  });
  assertEquals(called, 0);
});

Deno.test("serveBounded() aborts the request's signal when the client goes away", async () => {
  const aborted = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  await withServer((request) => {
    request.signal.addEventListener("abort", () => aborted.resolve());
    started.resolve();
    // An answer that streams until the client is gone (as an SSE stream does).
    return new Response(new ReadableStream({ pull: () => new Promise(() => {}) }));
  }, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode("GET /sse HTTP/1.1\r\nHost: x\r\n\r\n"));
    await started.promise;
    conn.close();
    await aborted.promise;
  });
});

Deno.test("serveBounded() closes a connection whose body stalls, and one that sends nothing", async () => {
  await withServer(echo, async (port, server) => {
    const idle = await Deno.connect({ hostname: "127.0.0.1", port });
    const stalled = await Deno.connect({ hostname: "127.0.0.1", port });
    await stalled.write(
      new TextEncoder().encode("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"),
    );
    // Both were taken by the server, then both are ended by it.
    assertEquals(await idle.read(new Uint8Array(8)), null);
    const answer = await stalled.read(new Uint8Array(8)).catch(() => null);
    assertEquals(answer, null);
    idle.close();
    stalled.close();
    assert(server.open() <= 1, String(server.open()));
  }, { maxConnections: 4, headTimeoutMs: 200, maxConnectionsPerUser: 4 });
});

Deno.test("serveBounded() refuses a body over 16 MiB before reading it", async () => {
  let called = 0;
  await withServer(() => {
    called++;
    return new Response("no");
  }, async (port) => {
    const answer = await raw(
      port,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${16 * 1024 * 1024 + 1}\r\n\r\nabc`,
    );
    assertMatch(answer, /^HTTP\/1\.1 413 /);
  });
  assertEquals(called, 0);
});

Deno.test("serveBounded() answers 429 past maxConnectionsPerUser with one bearer token, not to another user", async () => {
  const release = Promise.withResolvers<void>();
  let started = 0;
  await withServer(async () => {
    started++;
    await release.promise;
    return new Response("done");
  }, async (port) => {
    const open = (token: string) =>
      raw(port, `GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    // Bob holds two requests open (his limit), spelling the header two ways.
    const held = [
      open("bob"),
      raw(port, "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: bearer   bob \r\n\r\n"),
    ];
    while (started < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // His third is refused; Alice's goes through.
    assertMatch(await open("bob"), /^HTTP\/1\.1 429 Too Many Requests\r\n/);
    const alice = open("alice");
    while (started < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    release.resolve();
    for (const answer of [...held, alice]) assertMatch(await answer, /^HTTP\/1\.1 200 OK/);
    // Bob's slots are given back once his requests ended.
    assertMatch(await open("bob"), /^HTTP\/1\.1 200 OK/);
  }, { maxConnections: 16, headTimeoutMs: 5_000, maxConnectionsPerUser: 2 });
});
