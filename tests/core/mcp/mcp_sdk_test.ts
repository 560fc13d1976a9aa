import { assertEquals } from "@std/assert";
import { z } from "zod";
import {
  adoptLegacyHandshake,
  CallingClient,
  type CallToolResult,
  Client,
  createMcpHandler,
  DefaultJsonSchemaValidator,
  oauthAuthorize,
  type OAuthTokens,
  ProtocolError,
  type SdkError,
  SdkErrorCode,
  Server,
  StreamableHTTPClientTransport,
  type Transport,
  WebStandardStreamableHTTPServerTransport,
} from "../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

// These lines fail to type-check if an SDK import silently turns into `any`.
Deno.test("mcp_sdk re-exports the SDK with real types, not any", () => {
  const client = new Client({ name: "t", version: "1" });
  // @ts-expect-error: getServerVersion() returns an Implementation, not a number.
  const version: number = client.getServerVersion();
  // @ts-expect-error: the constructor requires server info.
  new McpServer();
  // @ts-expect-error: a transport pair is a tuple of transports, not strings.
  const pair: [string, string] = InMemoryTransport.createLinkedPair();
  // @ts-expect-error: the URL must be a URL object.
  new StreamableHTTPClientTransport(42);
  // @ts-expect-error: handleRequest takes a Request.
  new WebStandardStreamableHTTPServerTransport({}).handleRequest("x");
  // @ts-expect-error: content is required in a tool result.
  const result: CallToolResult = { isError: true };
  // @ts-expect-error: the low-level server needs its info.
  new Server();
  // @ts-expect-error: ProtocolError takes a numeric code.
  new ProtocolError("x", "y");
  // @ts-expect-error: auth() takes a provider and options, not a string.
  const authorizing: Promise<string> = oauthAuthorize("provider");
  authorizing.catch(() => {});
  // Not run (it would throw): only its type is checked.
  const compile = () =>
    // @ts-expect-error: a validator compiles a schema object, not a string.
    new DefaultJsonSchemaValidator().getValidator("schema");
  // @ts-expect-error: an access token is a string.
  const tokens: OAuthTokens = { access_token: 1, token_type: "Bearer" };
  assertEquals([version, pair, result, tokens.token_type], [undefined, pair, result, "Bearer"]);
  assertEquals(typeof compile, "function");
});

Deno.test("a client given an earlier 2025 handshake connects on a transport with a session without initialize, and uses what it was given", async () => {
  const sent: unknown[] = [];
  const versions: string[] = [];
  const transport: Transport = {
    sessionId: "session-1",
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send(message) {
      sent.push(message);
      const { id, method } = message as { id?: number; method?: string };
      // Answers the list the client may send only because it knows the server offers tools.
      if (method === "tools/list") {
        queueMicrotask(() =>
          transport.onmessage?.({ jsonrpc: "2.0", id: id!, result: { tools: [] } })
        );
      }
      return Promise.resolve();
    },
    setProtocolVersion: (version) => versions.push(version),
  };
  const client = new Client({ name: "t", version: "1" });
  adoptLegacyHandshake(client, {
    protocolVersion: "2025-06-18",
    capabilities: { tools: { listChanged: true } },
    serverVersion: { name: "s", version: "2" },
    instructions: "be kind",
  });
  await client.connect(transport);
  // The SDK's resume path ran: nothing sent, the kept version handed to the transport.
  assertEquals([sent, versions], [[], ["2025-06-18"]]);
  assertEquals(client.getProtocolEra(), "legacy");
  assertEquals(client.getServerCapabilities(), { tools: { listChanged: true } });
  assertEquals([client.getServerVersion()?.name, client.getInstructions()], ["s", "be kind"]);
  assertEquals(await client.listTools(), { tools: [] });
  assertEquals(sent.map((m) => (m as { method: string }).method), ["tools/list"]);
  await client.close();
});

/** A dual-era SDK handler with an `echo` tool, answered in process; `mangle` rewrites answers. */
function echoFetch(mangle?: (body: string) => string): typeof fetch {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "echo", version: "1.0.0" });
    server.registerTool("echo", {
      inputSchema: z.object({ text: z.string() }),
    }, ({ text }) => ({ content: [{ type: "text", text }] }));
    return server;
  }, { legacy: "stateless", responseMode: "json" });
  return async (input, init) => {
    const response = await handler.fetch(new Request(input, init));
    if (mangle === undefined || !String(init?.body).includes('"tools/call"')) return response;
    return new Response(mangle(await response.text()), response);
  };
}

const ERAS = {
  "2026-07-28": { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  "2025": {},
} as const;

Deno.test("CallingClient checks a tool result as the SDK client does, without first probing the era's result schema with undefined", async () => {
  for (const [era, options] of Object.entries(ERAS)) {
    const client = new CallingClient({ name: "t", version: "1" }, options);
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://in-process/mcp"), { fetch: echoFetch() }),
    );
    // Every codec the client resolves is its era's one object: each result check is seen here.
    const codec = (client as unknown as { _wireCodec(): Codec })._wireCodec();
    const checked: unknown[] = [];
    const validateResult = codec.validateResult;
    codec.validateResult = (method, raw) => {
      if (method === "tools/call") checked.push(raw);
      return validateResult.call(codec, method, raw);
    };
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      assertEquals(result.content, [{ type: "text", text: "hi" }], era);
    } finally {
      codec.validateResult = validateResult;
      await client.close();
    }
    // Once, the answer itself (the SDK's own client first checks `undefined` too).
    assertEquals(checked.length, 1, era);
    assertEquals((checked[0] as { content?: unknown }).content, [{ type: "text", text: "hi" }]);
  }
});

interface Codec {
  validateResult(method: string, raw: unknown): unknown;
}

Deno.test("CallingClient refuses a malformed tool result as the SDK client does, with the same error", async () => {
  // `content` a string: what the era's CallToolResult schema refuses.
  const mangle = (body: string) => body.replace(/"content":\[[^\]]*\]/, '"content":"nope"');
  for (const [era, options] of Object.entries(ERAS)) {
    const failures: unknown[] = [];
    for (const Made of [Client, CallingClient]) {
      const client = new Made({ name: "t", version: "1" }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://in-process/mcp"), {
          fetch: echoFetch(mangle),
        }),
      );
      try {
        await client.callTool({ name: "echo", arguments: { text: "hi" } });
        failures.push("no error");
      } catch (error) {
        const { name, code, message } = error as SdkError;
        failures.push([name, code, message]);
      } finally {
        await client.close();
      }
    }
    assertEquals(failures[1], failures[0], era);
    assertEquals((failures[0] as unknown[])[1], SdkErrorCode.InvalidResult, era);
  }
});
