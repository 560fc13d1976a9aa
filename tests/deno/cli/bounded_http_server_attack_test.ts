import { assert, assertEquals } from "@std/assert";
import { serveBounded } from "../../../src/deno/cli/bounded_http_server.ts";

// Outside attacks on serve's HTTP/1.1 server that need no bearer token.

Deno.test("a client without a token that opens every connection slot and never finishes a head does not lock out a user who sends a whole request", async () => {
  const controller = new AbortController();
  let served = 0;
  const server = serveBounded({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    maxConnections: 4,
    // Far longer than the test: only eviction, not the timeout, can free a slot here.
    headTimeoutMs: 60_000,
    maxConnectionsPerUser: 4,
  }, () => {
    served++;
    return new Response("ok");
  });
  const port = server.addr.port;
  const idle: Deno.Conn[] = [];
  try {
    // The attack: every slot held by a connection that sent half a request line and nothing more.
    for (let i = 0; i < 4; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode("GET / HTT"));
      idle.push(conn);
    }
    for (let i = 0; i < 100 && server.open() < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(server.open(), 4, "the attacker's half-sent heads hold every slot");
    assertEquals(served, 0);

    // A user with a whole request still gets an answer: a slot still reading its head is given up.
    const response = await fetch(`http://127.0.0.1:${port}/mcp`);
    assertEquals(response.status, 200, "the user was locked out by connections that sent no head");
    assertEquals(await response.text(), "ok");
    assertEquals(served, 1);

    // What made room was one of the attacker's idle connections: it was closed unanswered.
    let closed = 0;
    for (const conn of idle) {
      const result = await Promise.race([
        conn.read(new Uint8Array(64)).catch(() => null),
        new Promise<"open">((resolve) => setTimeout(() => resolve("open"), 200)),
      ]);
      if (result === null) closed++;
    }
    assert(closed >= 1, "no idle connection was closed to make room");
  } finally {
    for (const conn of idle) {
      try {
        conn.close();
      } catch {
        // Closed by the server.
      }
    }
    controller.abort();
    await server.finished;
  }
});

Deno.test("a client with a wrong token whose requests were answered 401 cannot keep every slot by leaving the announced bodies unsent", async () => {
  const controller = new AbortController();
  const server = serveBounded(
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      maxConnections: 4,
      headTimeoutMs: 60_000,
      maxConnectionsPerUser: 4,
    },
    (request) =>
      request.headers.get("authorization") === "Bearer alice-token"
        ? new Response("ok")
        : new Response("Unauthorized", { status: 401 }),
  );
  const port = server.addr.port;
  const held: Deno.Conn[] = [];
  try {
    // The attack: whole heads with a wrong token and a body that never comes; the server answers
    // 401 without reading it and then waits for the unread body before closing.
    for (let i = 0; i < 4; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode(
        `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong-${i}\r\nContent-Length: 1000\r\n\r\n`,
      ));
      const answer = new Uint8Array(256);
      const count = await conn.read(answer);
      assertEquals(
        new TextDecoder().decode(answer.subarray(0, count ?? 0)).split("\r\n")[0],
        "HTTP/1.1 401 Unauthorized",
      );
      held.push(conn);
    }
    assertEquals(server.open(), 4, "the answered connections still hold every slot");

    // Alice's request gets in: a connection whose answer is written whole is given up for her.
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      headers: { authorization: "Bearer alice-token" },
    });
    assertEquals(response.status, 200, "Alice was locked out by answered connections");
    assertEquals(await response.text(), "ok");
  } finally {
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // Closed by the server.
      }
    }
    controller.abort();
    await server.finished;
  }
});
