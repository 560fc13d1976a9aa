/**
 * A server's allowed host is a name whose DNS its author controls (its own API host): the name
 * answers `127.0.0.1`, and the host-side proxy would connect to the machine's own services (a
 * `toolroute serve` port, a database on loopback; `169.254.169.254` on a cloud machine) from the
 * sandbox. The machine's host name, which resolves to loopback here, stands in for such a name.
 *
 * @module
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { addressReachable, NetworkProxy } from "../../../src/deno/sandbox/network_proxy.ts";

/** A loopback listener that counts the requests it reads (a service of the host). */
function hostService() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state = { requests: 0 };
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const count = await conn.read(new Uint8Array(1024)).catch(() => null);
        if (count !== null) {
          state.requests++;
          await conn.write(
            new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret"),
          )
            .catch(() => {});
        }
        conn.close();
      })();
    }
  })().catch(() => {});
  return { port: (listener.addr as Deno.NetAddr).port, state, close: () => listener.close() };
}

async function through(proxy: NetworkProxy, request: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: proxy.socket });
  try {
    await conn.write(new TextEncoder().encode(request));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const count = await conn.read(buffer).catch(() => null);
      if (count === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, count));
      // A tunnel stays open: its first answer is enough.
      if (/\r\n\r\n[^]*\S/.test(text) || text.includes("200 Connection")) break;
    }
    return text;
  } finally {
    conn.close();
  }
}

Deno.test("an allowed name that resolves to the machine itself reaches none of its services", async () => {
  const name = Deno.hostname();
  const service = hostService();
  const proxy = await NetworkProxy.start([name], { maxConnections: 8, idleTimeoutMs: 5_000 });
  try {
    // The attack's premise: the allowed name answers with this machine's loopback address.
    const direct = await Deno.connect({ hostname: name, port: service.port });
    assert(!addressReachable((direct.remoteAddr as Deno.NetAddr).hostname, name), name);
    direct.close();
    const plain = await through(
      proxy,
      `GET http://${name}:${service.port}/ HTTP/1.1\r\nHost: ${name}\r\n\r\n`,
    );
    const tunnel = await through(proxy, `CONNECT ${name}:${service.port} HTTP/1.1\r\n\r\n`);
    // Both were refused, and nothing reached the service.
    assertStringIncludes(plain, "403 Forbidden");
    assertStringIncludes(plain, "resolves to this machine");
    assertStringIncludes(tunnel, "403 Forbidden");
    assert(!plain.includes("secret") && !tunnel.includes("secret"));
    assertEquals(service.state.requests, 0);
    assertEquals(proxy.counts.refused, 2);
    // "localhost" listed by name still reaches loopback: the user's own choice.
    const own = await NetworkProxy.start(["localhost"], {
      maxConnections: 8,
      idleTimeoutMs: 5_000,
    });
    try {
      const allowed = await through(
        own,
        `GET http://localhost:${service.port}/ HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      );
      assertStringIncludes(allowed, "200 OK");
      assertEquals(service.state.requests, 1);
    } finally {
      await own.close();
    }
  } finally {
    await proxy.close();
    service.close();
  }
});

Deno.test("addressReachable refuses loopback, unspecified and link-local addresses for other names", () => {
  for (
    const address of [
      "127.0.0.1",
      "127.1.2.3",
      "0.0.0.0",
      "169.254.169.254",
      "::1",
      "::",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
    ]
  ) {
    assertEquals(addressReachable(address, "api.example.com"), false, address);
  }
  for (const address of ["93.184.216.34", "10.0.0.5", "2606:2800:220:1::1"]) {
    assertEquals(addressReachable(address, "api.example.com"), true, address);
  }
  assertEquals(addressReachable("127.0.0.1", "localhost"), true);
  assertEquals(addressReachable("::1", "db.localhost"), true);
});
