import { assert, assertEquals, assertMatch } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import type { ToolrouteConfig } from "../../../src/deno/cli/toolroute_config.ts";
import {
  ANONYMOUS_TOKEN,
  type InProcessServe,
  startServeHttp,
} from "../../_helpers/serve_http_in_process.ts";

/** Serve over a workspace with `hello.txt`, exposing `read_file` unless the config says. */
function startServe(
  overrides: Partial<ToolrouteConfig> = {},
  tokens?: Record<string, string>,
): Promise<InProcessServe> {
  return startServeHttp({ expose: { builtins: ["read_file"] }, ...overrides }, {
    tokens,
    files: { "hello.txt": "hello\n" },
    prefix: "toolroute_http_",
  });
}

async function rawStatus(port: number, host: string): Promise<number> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const body = "{}";
  await connection.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ));
  let text = "";
  for await (const chunk of connection.readable) text += new TextDecoder().decode(chunk);
  return Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
}

function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  return client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  ).then(() => client);
}

Deno.test("serveHttp() logs its URL, serves the tool set and returns once stopped", async () => {
  await using serve = await startServe();
  assertMatch(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assertEquals(serve.logs[0], `toolroute: serving at ${serve.url} (bearer token required)`);
  assertEquals(serve.logs[2], `  Authorization: Bearer ${ANONYMOUS_TOKEN}`);
  assertEquals(await rawStatus(serve.port, `127.0.0.1:${serve.port}`), 401);
  const client = await connect(serve.url, { authorization: `Bearer ${ANONYMOUS_TOKEN}` });
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool: { name: string }) => tool.name), ["read_file"]);
  const result = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  const text = (result as { content: { text: string }[] }).content[0].text;
  assertEquals(JSON.parse(text).content, "hello\n");
  await client.close();
  await serve.stop();
  await assertRefused(serve.port);
});

Deno.test("serveHttp() with tokens requires one and serves each request as its token's user", async () => {
  await using serve = await startServe({}, { "alice-token": "alice" });
  assertEquals(serve.logs, [`toolroute: serving at ${serve.url} (bearer token required)`]);
  assertEquals(await rawStatus(serve.port, `127.0.0.1:${serve.port}`), 401);
  const client = await connect(serve.url, { authorization: "Bearer alice-token" });
  await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  assertEquals(serve.events.map((event) => [event.tool, event.userId]), [["read_file", "alice"]]);
  await client.close();
});

Deno.test("serveHttp() on loopback accepts only loopback Host headers", async () => {
  await using serve = await startServe();
  for (const host of [`127.0.0.1:${serve.port}`, `localhost:${serve.port}`, "[::1]"]) {
    assertEquals(await rawStatus(serve.port, host) === 403, false, host);
  }
  assertEquals(await rawStatus(serve.port, "evil.example.com"), 403);
  assertEquals(await rawStatus(serve.port, `attacker.test:${serve.port}`), 403);
});

Deno.test("serveHttp() uses the config's allowedHosts instead of the loopback names", async () => {
  await using serve = await startServe({ http: { allowedHosts: ["toolroute.test"] } });
  assertEquals(await rawStatus(serve.port, `127.0.0.1:${serve.port}`), 403);
  assertEquals(await rawStatus(serve.port, "toolroute.test") === 403, false);
});

Deno.test("serveHttp() forwards a tool-list change to connected clients", async () => {
  await using serve = await startServe();
  assertEquals(serve.context.toolsChanged.size, 1, "serveHttp adds one listener");
  const client = new Client({ name: "test", version: "1.0.0" });
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve());
  await client.connect(
    new StreamableHTTPClientTransport(new URL(serve.url), {
      requestInit: { headers: { authorization: `Bearer ${ANONYMOUS_TOKEN}` } },
    }),
  );
  await client.listTools();
  // The client opens its notification stream (GET) on its own after connecting; a change before
  // that stream is there reaches nobody. So the change is made again every 50 ms until the
  // client hears one, for at most 10 s.
  let fired = 0;
  const fire = () => {
    fired++;
    for (const listener of serve.context.toolsChanged) listener(undefined);
  };
  fire();
  const again = setInterval(fire, 50);
  const deadline = setTimeout(
    () => changed.reject(new Error("no tool-list change in 10 s")),
    10_000,
  );
  try {
    await changed.promise;
  } finally {
    clearInterval(again);
    clearTimeout(deadline);
  }
  assert(fired >= 1);
  await client.close();
});

async function assertRefused(port: number): Promise<void> {
  try {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    connection.close();
    throw new Error(`port ${port} still accepts connections after the stop`);
  } catch (error) {
    assertEquals(error instanceof Deno.errors.ConnectionRefused, true, String(error));
  }
}

// Opens a connection that sends a request head one byte at a time and never finishes it, until
// the server ends it; says how many bytes it got in and whether the server closed it.
async function slowloris(port: number): Promise<{ sent: number; closed: boolean }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Padding: ${"a".repeat(10_000)}`,
  );
  let closed = false;
  const ended = conn.read(new Uint8Array(64)).then(() => closed = true, () => closed = true);
  let sent = 0;
  for (; sent < head.length && !closed; sent++) {
    try {
      await conn.write(head.subarray(sent, sent + 1));
    } catch {
      closed = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await ended;
  conn.close();
  return { sent, closed };
}

Deno.test("serveHttp() closes connections whose request head trickles in, and keeps serving", async () => {
  await using serve = await startServe({ http: { headTimeoutMs: 400 } });
  // The attack of the report: request heads sent a byte at a time, never finished.
  const attacks = await Promise.all(Array.from({ length: 20 }, () => slowloris(serve.port)));
  for (const attack of attacks) {
    // Each was really open and sending (several bytes went in), then the server closed it
    // before the head could end (10 KB at a byte per 20 ms).
    assert(attack.sent >= 3, `only ${attack.sent} bytes were sent`);
    assert(attack.sent < 10_000, "the head was never cut off");
    assertEquals(attack.closed, true);
  }
  // A normal request still succeeds.
  const client = await connect(serve.url, { authorization: `Bearer ${ANONYMOUS_TOKEN}` });
  const result = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  assertEquals(
    JSON.parse((result as { content: { text: string }[] }).content[0].text).content,
    "hello\n",
  );
  await client.close();
});

Deno.test("serveHttp() answers 503 past maxConnections and serves again once they end", async () => {
  await using serve = await startServe({ http: { maxConnections: 5, headTimeoutMs: 60_000 } });
  // Five connections take every slot: each sent a whole head (an idle one would be given up for
  // a newcomer), seen read by the server's 100 Continue, and holds the body it announced.
  const held = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: serve.port });
      await conn.write(new TextEncoder().encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${serve.port}\r\nAuthorization: Bearer ${ANONYMOUS_TOKEN}\r\n` +
          "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n",
      ));
      const answer = new Uint8Array(64);
      const count = await conn.read(answer);
      assertMatch(new TextDecoder().decode(answer.subarray(0, count ?? 0)), /^HTTP\/1\.1 100 /);
      return conn;
    }),
  );
  // The server has taken them: the next connections are refused with a 503 that says why.
  let busy = "";
  for (let i = 0; i < 50 && !busy.startsWith("HTTP/1.1 503"); i++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: serve.port });
    busy = "";
    for await (const chunk of conn.readable) busy += new TextDecoder().decode(chunk);
  }
  assertMatch(busy, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assertMatch(busy, /already has 5 connections open/);
  for (const conn of held) conn.close();
  // Slots free again: a normal request succeeds (the server may take a moment to see the ends).
  let status = 503;
  for (let i = 0; i < 100 && status === 503; i++) {
    status = await rawStatus(serve.port, `127.0.0.1:${serve.port}`);
    if (status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assertEquals(status, 401);
});
