// Attacks of a hostile upstream MCP server on a remote `tools/call`
// (the SDK client over `HttpClientTransport` and its guarded fetch), over a real loopback socket so that the runtime's own
// HTTP handling (decompression, Content-Length framing) is what the client sees.
import { assert, assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import { handshakeAnswer } from "./_hostile_handshake.ts";
import { HttpClientTransport } from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import { Client } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../../../../src/core/mcp/mcp_error_code.ts";
import type { Transport } from "../../../../../src/core/mcp/mcp_sdk.ts";

const MAX = 100_000;
const enc = new TextEncoder();

type Attack = (id: number, signal: AbortSignal) => Response | Promise<Response>;

/** A loopback MCP server that plays along for the handshake and answers `tools/call` with `attack`. */
function hostile(attack: Attack) {
  const stats = { calls: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const message = await req.json();
    const played = handshakeAnswer(message);
    if (played !== undefined) return played;
    if (message.method === "tools/call") {
      stats.calls++;
      return attack(message.id, req.signal);
    }
    return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
  });
  return { server, stats, url: new URL(`http://127.0.0.1:${server.addr.port}/mcp`) };
}

async function attacked(attack: Attack, timeout = 3000) {
  const { server, stats, url } = hostile(attack);
  const transport = new HttpClientTransport({ url, kind: "http", maxBodyBytes: MAX });
  const client = new Client({ name: "victim", version: "1" });
  const forwarded: unknown[] = [];
  try {
    await client.connect(transport as unknown as Transport);
    const inner = transport.onmessage!;
    transport.onmessage = (m, e) => {
      forwarded.push(m);
      inner(m, e);
    };
    const started = performance.now();
    const outcome = await client.callTool({ name: "t", arguments: {} }, { timeout }).then(
      (result) => ({ result, error: undefined }),
      (error) => ({ result: undefined, error }),
    );
    return { ...outcome, ms: performance.now() - started, calls: stats.calls, forwarded };
  } finally {
    await client.close().catch(() => {});
    await server.shutdown();
  }
}

function sse(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, signal: AbortSignal) {
  const body = ReadableStream.from(chunks).pipeThrough(new TransformStream(), { signal })
    .pipeThrough(new TransformStream());
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function gzip(parts: Uint8Array<ArrayBuffer>[]): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob(parts).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("a gzip bomb whose Content-Length is small is bounded by the decompressed size, not read whole", async () => {
  await gzipBomb();
});

async function gzipBomb(): Promise<void> {
  const pad = new Uint8Array(20 * MAX).fill(32);
  let compressed = 0;
  const { error, calls } = await attacked(
    async (id) => {
      const bomb = await gzip([
        enc.encode(`{"jsonrpc":"2.0","id":${id},"result":{"content":[]}`),
        pad,
        enc.encode("}"),
      ]);
      compressed = bomb.length;
      return new Response(bomb, {
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(bomb.length),
        },
      });
    },
    3000,
  );
  assert(compressed > 0 && compressed < MAX);
  assert(calls > 0);
  // The guarded fetch's TooLargeError (mapped by the gateway).
  assertInstanceOf(error, Error);
  assert(/larger than|exceeded/.test(error.message), error.message);
}

Deno.test("an answer for another id, then two answers for this id: the call gets the first of its own, the rest goes to the client", async () => {
  const { result, calls, forwarded } = await attacked((id) =>
    Response.json([
      { jsonrpc: "2.0", id: id + 1, result: { content: [{ type: "text", text: "other" }] } },
      { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "mine" }] } },
      { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "again" }] } },
    ])
  );
  assert(calls > 0);
  assertEquals(result?.content, [{ type: "text", text: "mine" }]);
  assert(forwarded.some((m) => (m as { id: number }).id !== undefined));
});

Deno.test("an endless event stream of comments and notifications without an answer ends at the deadline", async () => {
  let sent = 0;
  const { error, calls, ms } = await attacked((_id, signal) =>
    sse(
      (async function* () {
        while (!signal.aborted) {
          sent++;
          yield enc.encode(": ping\n\n");
          await new Promise((r) => setTimeout(r, 5));
        }
      })(),
      signal,
    ), 400);
  assert(calls > 0 && sent > 10);
  assertInstanceOf(error, Error);
  assertEquals(mcpErrorCodeOf(error), McpErrorCode.RequestTimeout);
  assert(ms < 2000, `${ms} ms`);
});

Deno.test("one huge event line without a newline is cut at the body limit", async () => {
  let sent = 0;
  const { error, calls } = await attacked((_id, signal) =>
    sse(
      (function* () {
        yield enc.encode("data: ");
        for (let i = 0; i < 100 && !signal.aborted; i++) {
          sent++;
          yield new Uint8Array(16_384).fill(97);
        }
      })(),
      signal,
    )
  );
  assert(calls > 0 && sent > 1);
  assertInstanceOf(error, Error);
  assert(/larger than/.test(error.message), error.message);
});

Deno.test("a notification flood on the answer's stream is bounded by the body limit", async () => {
  const note = enc.encode(
    'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
  );
  // A long deadline: on a loaded machine the bound, not the deadline, must end the call.
  const { error, calls, forwarded } = await attacked(
    (_id, signal) => sse(Array.from({ length: 10_000 }, () => note), signal),
    30_000,
  );
  assert(calls > 0);
  assertInstanceOf(error, Error);
  assert(/larger than/.test(error.message), error.message);
  assert(forwarded.length > 0 && forwarded.length * note.length <= MAX + note.length);
});

Deno.test("invalid JSON, a non-object result and an unexpected content type become errors with codes", async () => {
  for (
    const attack of [
      () => new Response("{not json", { headers: { "content-type": "application/json" } }),
      (id: number) => Response.json({ jsonrpc: "2.0", id, result: "smuggled" }),
      () => new Response("<html>", { headers: { "content-type": "text/html" } }),
    ]
  ) {
    const { error, calls } = await attacked(attack);
    assert(calls > 0);
    assertInstanceOf(error, Error);
  }
});

Deno.test("a redirect is refused and a Content-Length shorter than the body does not leak the rest into the answer", async () => {
  const redirected = await attacked(() =>
    new Response(null, { status: 307, headers: { location: "http://169.254.169.254/" } })
  );
  assert(redirected.calls > 0);
  assert(/redirect/.test(String(redirected.error)));
  const lying = await attacked((id) => {
    const text = JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } });
    return new Response(text + " ".repeat(4 * MAX), {
      headers: { "content-type": "application/json", "content-length": String(text.length) },
    });
  });
  assert(lying.calls > 0);
  // Deno's server sends the body with the length it declared, or the call fails: never more.
  if (lying.result !== undefined) assertEquals(lying.result.content, []);
});

Deno.test("a result whose content smuggles extra fields comes back as the server's plain object, no prototype pollution", async () => {
  const { result, calls } = await attacked((id) =>
    new Response(
      `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"__proto__":{"polluted":1},"isError":false}}`,
      { headers: { "content-type": "application/json" } },
    )
  );
  assert(calls > 0);
  assert(result !== undefined);
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("rejects when the deadline passes before the POST is even answered", async () => {
  const { error, calls, ms } = await attacked((_id, signal) =>
    new Response(
      new ReadableStream({
        start(c) {
          signal.addEventListener("abort", () => c.close());
        },
      }),
      { headers: { "content-type": "application/json" } },
    ), 300);
  assert(calls > 0);
  assertInstanceOf(error, Error);
  assert(ms < 2000);
  await assertRejects(() => Promise.reject(error));
});

Deno.test("a stream with an event id and a huge retry that breaks leaves no timer behind once the call timed out", async () => {
  let broken = 0;
  // Counts the long sleeps still pending (the resumption waits `retry` before it resumes).
  const pending = new Set<unknown>();
  let slept = 0;
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  const timers = globalThis as unknown as Record<string, unknown>;
  timers.setTimeout = (fn: () => void, delay?: number) => {
    const id: unknown = set(() => {
      pending.delete(id);
      fn();
    }, delay);
    if ((delay ?? 0) > 1_000_000) {
      pending.add(id);
      slept++;
    }
    return id;
  };
  timers.clearTimeout = (id?: unknown) => {
    pending.delete(id);
    clear(id as number);
  };
  let outcome;
  try {
    outcome = await attacked(() => {
      broken++;
      // An event (empty data) with an id: the SDK takes it for a priming event and resumes the
      // stream after `retry`. (Without `data:` no event is dispatched, nothing is resumed, and the
      // call fails at once as closed.)
      return new Response("id: 1\nretry: 2000000000\ndata:\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    }, 300);
  } finally {
    timers.setTimeout = set;
    timers.clearTimeout = clear;
  }
  const { error, calls, ms } = outcome;
  const left = pending.size;
  for (const id of pending) clear(id as number);
  assert(calls > 0 && broken > 0);
  assert(slept > 0, "the resumption's long sleep was never scheduled: the attack did not run");
  assertEquals(left, 0, "a resumption's sleep outlived the call");
  assertInstanceOf(error, Error);
  assertEquals(mcpErrorCodeOf(error), McpErrorCode.RequestTimeout);
  assert(ms < 2000);
});

Deno.test("two concurrent calls on one connection (two users of a global server): an answer on the other's stream reaches only the call its id names", async () => {
  const ids: number[] = [];
  let release!: () => void;
  const both = new Promise<void>((resolve) => release = resolve);
  const { server, url } = hostile(async (id) => {
    ids.push(id);
    if (ids.length === 2) release();
    await both;
    // Each POST's stream carries the *other* call's answer (labelled with the other's id).
    const other = ids.find((x) => x !== id)!;
    return new Response(
      `data: ${
        JSON.stringify({
          jsonrpc: "2.0",
          id: other,
          result: { content: [{ type: "text", text: `for ${other}` }] },
        })
      }\n\n`,
      { headers: { "content-type": "text/event-stream" } },
    );
  });
  const transport = new HttpClientTransport({ url, kind: "http", maxBodyBytes: MAX });
  const client = new Client({ name: "victim", version: "1" });
  try {
    await client.connect(transport as unknown as Transport);
    const request = (user: string) =>
      client.request({ method: "tools/call", params: { name: "t", arguments: { user } } }, {
        timeout: 3000,
      });
    const [a, b] = await Promise.all([request("alice"), request("bob")]);
    assertEquals(ids.length, 2);
    // Ids are given in call order: Alice's is the lower one.
    assertEquals(a.content, [{ type: "text", text: `for ${Math.min(...ids)}` }]);
    assertEquals(b.content, [{ type: "text", text: `for ${Math.max(...ids)}` }]);
  } finally {
    await client.close().catch(() => {});
    await server.shutdown();
  }
});
