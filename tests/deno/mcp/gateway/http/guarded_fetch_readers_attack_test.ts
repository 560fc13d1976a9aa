/**
 * A hostile server against the guarded fetch's shadowed event-stream body (the runtime's own
 * `Response` handed on with `body`, `text()` and `json()` replaced): every way a response can be
 * read, on every kind of answer that is not a whole JSON body, over a real loopback connection
 * (the runtime's own responses, gzip decoded by the runtime).
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "@std/assert";
import { GuardedFetch } from "../../../../../src/core/mcp/gateway/http/guarded_fetch.ts";

const MAX = 64 * 1024;
const SENT = 1024 * 1024;

/** Answers `SENT` bytes in 16 KiB chunks of undeclared length, as `?type=…&status=…&gzip=1` say. */
function hostileServer() {
  const chunk = new TextEncoder().encode("data: " + "x".repeat(16 * 1024 - 8) + "\n\n");
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const query = new URL(request.url).searchParams;
    let sent = 0;
    let body: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= SENT) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const headers = new Headers();
    const type = query.get("type");
    if (type !== null) headers.set("content-type", type);
    if (query.get("gzip") === "1") {
      body = body.pipeThrough(
        new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
      );
      headers.set("content-encoding", "gzip");
    }
    return new Response(body, { status: Number(query.get("status") ?? 200), headers });
  });
}

/** Bytes a reader got from the response, or `undefined` when it threw. */
const readers: Record<string, (response: Response) => Promise<number>> = {
  text: async (r) => new TextEncoder().encode(await r.text()).byteLength,
  json: async (r) => JSON.stringify(await r.json()).length,
  arrayBuffer: async (r) => (await r.arrayBuffer()).byteLength,
  bytes: async (r) => (await r.bytes()).byteLength,
  blob: async (r) => (await r.blob()).size,
  formData: async (r) => [...(await r.formData()).values()].join("").length,
  clone: async (r) => (await r.clone().arrayBuffer()).byteLength,
  body: async (r) => {
    let total = 0;
    for await (const part of r.body!) total += part.byteLength;
    return total;
  },
  rewrapped: async (r) => (await new Response(r.body, r).arrayBuffer()).byteLength,
};

Deno.test("no reader of a guarded answer that is not whole JSON gets more than the bound, whatever its type, status or encoding", async () => {
  const server = hostileServer();
  const base = `http://127.0.0.1:${server.addr.port}/mcp`;
  const variants = [
    "type=text/event-stream",
    "type=text/event-stream;%20charset=utf-8",
    "type=TEXT/EVENT-STREAM",
    "",
    "type=application/json",
    "type=Application/JSON;%20charset=utf-8",
    "type=application/problem%2Bjson",
    "type=text/plain;%20application/json",
    "type=multipart/form-data;%20boundary=x",
    "type=application/x-www-form-urlencoded",
    "type=text/event-stream&gzip=1",
    "type=application/json&gzip=1",
    "type=text/event-stream&status=500",
    "type=text/event-stream&status=401",
    "type=text/plain&status=404&gzip=1",
  ];
  const attempts: string[] = [];
  let cut = 0;
  try {
    for (const variant of variants) {
      for (const [name, read] of Object.entries(readers)) {
        const guard = new GuardedFetch({ maxBodyBytes: MAX });
        let got: number | undefined;
        try {
          got = await read(await guard.fetch(`${base}?${variant}`, { method: "POST", body: "{}" }));
        } catch (error) {
          if (/exceeded \d+ bytes/.test(String(error))) cut++;
          got = undefined;
        }
        attempts.push(`${variant} ${name}`);
        assert(got === undefined || got <= MAX, `${variant} ${name}: read ${got} bytes`);
        await guard.close();
      }
    }
  } finally {
    await server.shutdown();
  }
  // The attack ran: every variant through every reader.
  assertEquals(attempts.length, variants.length * Object.keys(readers).length);
  // The server's bytes were read up to the bound and cut there, not refused before reading.
  assert(cut >= variants.length * 2, `${cut} reads cut at the bound`);
});

Deno.test("close() ends a shadowed event stream that nobody reads, one read half-way, and one read through text()", async () => {
  let cancelled = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    let ended = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        new Promise((resolve) =>
          setTimeout(() => {
            if (!ended) controller.enqueue(new TextEncoder().encode(": beat\n\n"));
            resolve();
          }, 20)
        ),
      cancel: () => {
        ended = true;
        cancelled++;
      },
    });
    return new Response(endless, { headers: { "content-type": "text/event-stream" } });
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  try {
    const guard = new GuardedFetch({ maxBodyBytes: MAX });
    const unread = await guard.fetch(url);
    const reading = await guard.fetch(url);
    const reader = reading.body!.getReader();
    await reader.read();
    const texted = (await guard.fetch(url)).text();
    await guard.close();
    assertEquals((await reader.read()).done, true);
    assertEquals(typeof await texted, "string");
    // The one nobody read ends too (after at most the one beat it had queued).
    const rest = unread.body!.getReader();
    let beats = 0;
    while (!(await rest.read()).done) beats++;
    assert(beats <= 1, `${beats} beats after close`);
    for (let i = 0; i < 50 && cancelled < 3; i++) await new Promise((r) => setTimeout(r, 20));
    assertEquals(cancelled, 3);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a JSON answer that declares a small content-length beside transfer-encoding: chunked is still cut at the bound", async () => {
  // The runtime decodes the chunks (transfer-encoding wins) and still shows the length sent.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let sent = 0;
  const serving = (async () => {
    for await (const conn of listener) {
      const encoder = new TextEncoder();
      try {
        await conn.read(new Uint8Array(65_536));
        await conn.write(encoder.encode(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\n" +
            "transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
        ));
        const chunk = `"${"x".repeat(16_384)}",`;
        await conn.write(encoder.encode(`1\r\n[\r\n`));
        while (sent < SENT) {
          await conn.write(encoder.encode(`${chunk.length.toString(16)}\r\n${chunk}\r\n`));
          sent += chunk.length;
        }
        await conn.write(encoder.encode(`2\r\n0]\r\n0\r\n\r\n`));
      } catch {
        // The client stopped reading.
      } finally {
        conn.close();
      }
    }
  })();
  try {
    const guard = new GuardedFetch({ maxBodyBytes: MAX });
    const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/mcp`;
    let read: number | undefined;
    let error: unknown;
    try {
      const response = await guard.fetch(url, { method: "POST", body: "{}" });
      // The attack ran: both headers reached the guard.
      assertEquals(response.headers.get("content-length"), "10");
      assertEquals(response.headers.get("transfer-encoding"), "chunked");
      read = JSON.stringify(await response.json()).length;
    } catch (caught) {
      error = caught;
    }
    assertEquals(read, undefined, `the JSON answer was read whole: ${read} bytes`);
    assertMatch(String(error), /exceeded 65536 bytes/);
    await guard.close();
  } finally {
    listener.close();
    await serving.catch(() => {});
  }
});

Deno.test("an event stream whose headers a server holds back until after close() is ended, not kept", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let cancelled = false;
  let beats = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    await held;
    let ended = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            if (!ended) {
              beats++;
              controller.enqueue(new TextEncoder().encode(": beat\n\n"));
            }
            resolve();
          }, 10)
        ),
      cancel: () => {
        ended = true;
        cancelled = true;
      },
    });
    return new Response(endless, { headers: { "content-type": "text/event-stream" } });
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  let response: Response | undefined;
  try {
    // The transport's abort no longer reaching the request (Deno holds its signal weakly).
    const guard = new GuardedFetch({
      maxBodyBytes: MAX,
      fetch: (input, init) => fetch(input, { ...init, signal: undefined }),
    });
    const pending = guard.fetch(url, { headers: { accept: "text/event-stream" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await guard.close();
    release();
    try {
      response = await pending;
    } catch {
      // Refused after close: also an end.
    }
    for (let i = 0; i < 50 && !cancelled; i++) await new Promise((r) => setTimeout(r, 20));
    // The attack ran: the server answered after the close.
    assert(beats > 0 || cancelled, "the server answered");
    assert(cancelled, `the stream lives on after close (${beats} beats)`);
    assertEquals(response, undefined, "a response handed on after close()");
  } finally {
    release();
    await response?.body?.cancel().catch(() => {});
    await server.shutdown();
  }
});
