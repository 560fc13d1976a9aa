// serve's HTTP/1.1 server finds the end of a head and the lines of a chunked body with
// `@std/bytes` since issue 27. A client without a token sends them split at every byte, the
// blank line and each CRLF cut in two, chunk lines past their bound, and heads past 64 KiB.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { serveBounded } from "../../src/deno/cli/bounded_http_server.ts";

const encoder = new TextEncoder();

async function withServer(
  run: (port: number, seen: { bodies: string[]; errors: string[] }) => Promise<void>,
) {
  const controller = new AbortController();
  const seen = { bodies: [] as string[], errors: [] as string[] };
  const server = serveBounded({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    maxConnections: 8,
    headTimeoutMs: 10_000,
    maxConnectionsPerUser: 8,
  }, async (request) => {
    try {
      const body = await request.text();
      seen.bodies.push(body);
      return new Response(`got ${body.length}`);
    } catch (error) {
      seen.errors.push((error as Error).message);
      return new Response("bad body", { status: 400 });
    }
  });
  try {
    await run(server.addr.port, seen);
  } finally {
    controller.abort();
    await server.finished;
  }
}

/** Sends the pieces one write each (a pause between them) and reads the answer to its end. */
async function sendPieces(port: number, pieces: (string | Uint8Array)[]): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    for (const piece of pieces) {
      try {
        await conn.write(typeof piece === "string" ? encoder.encode(piece) : piece);
      } catch {
        break; // the server closed the connection early
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(65536);
    for (;;) {
      const count = await Promise.race([
        conn.read(buffer).catch(() => null),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000)),
      ]);
      if (count === null) break;
      chunks.push(buffer.slice(0, count));
    }
    return new TextDecoder().decode(
      chunks.reduce((all, chunk) => new Uint8Array([...all, ...chunk]), new Uint8Array()),
    );
  } finally {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  }
}

Deno.test("a head sent one byte a write, its blank line split, is read whole and answered once", async () => {
  await withServer(async (port, seen) => {
    const head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n";
    const answer = await sendPieces(port, [...head.split(""), "hello"]);
    assertMatch(answer, /^HTTP\/1\.1 200/);
    assertMatch(answer, /got 5/);
    assertEquals(seen.bodies, ["hello"], "the attack ran: the request reached the handler whole");
  });
});

Deno.test("a chunked body split at every byte, CRLFs cut in two, reads as the bytes sent", async () => {
  await withServer(async (port, seen) => {
    const head = "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    const body = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n";
    const answer = await sendPieces(port, [head, ...body.split("")]);
    assertMatch(answer, /got 11/);
    assertEquals(seen.bodies, ["hello world"]);
  });
});

Deno.test("a chunk line longer than its bound with no CRLF fails the body, never buffers on", async () => {
  await withServer(async (port, seen) => {
    const head = "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    const long = "1".repeat(8192); // a chunk size line that never ends
    await sendPieces(port, [head, long.slice(0, 4000), long.slice(4000)]);
    assertEquals(seen.bodies, [], "no body was taken from an endless chunk line");
    assertEquals(seen.errors.length, 1, "the attack ran: the handler read and the read failed");
    assertMatch(seen.errors[0], /chunk line is too long|chunk/);
  });
});

Deno.test("a head past 64 KiB, its blank line past the bound, is refused 431 without the handler", async () => {
  await withServer(async (port, seen) => {
    const filler = `X-Fill: ${"a".repeat(70 * 1024)}\r\n`;
    const head = `POST /mcp HTTP/1.1\r\nHost: x\r\n${filler}Content-Length: 0\r\n\r\n`;
    const pieces: string[] = [];
    for (let at = 0; at < head.length; at += 4093) pieces.push(head.slice(at, at + 4093));
    const answer = await sendPieces(port, pieces);
    assertMatch(answer, /^HTTP\/1\.1 431/);
    assertEquals([seen.bodies, seen.errors], [[], []]);
  });
});

Deno.test("a CR LF CR then LF across two reads at the head's end is one blank line, and a lone LF LF is not", async () => {
  await withServer(async (port, seen) => {
    const answer = await sendPieces(port, [
      "GET /mcp HTTP/1.1\r\nHost: x\r\n\r",
      "\n",
    ]);
    assertMatch(answer, /^HTTP\/1\.1 200/);
    assertEquals(seen.bodies, [""]);
  });
  await withServer(async (port, seen) => {
    // Bare LFs never end a head here: the request waits for its CRLF CRLF and is not answered.
    const answer = await sendPieces(port, ["GET /mcp HTTP/1.1\nHost: x\n\n"]);
    assert(!/^HTTP\/1\.1 200/.test(answer), answer.slice(0, 40));
    assertEquals(seen.bodies, []);
  });
});
