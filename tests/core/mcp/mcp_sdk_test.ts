import { assertEquals } from "@std/assert";
import {
  adoptLegacyHandshake,
  type CallToolResult,
  Client,
  DefaultJsonSchemaValidator,
  oauthAuthorize,
  type OAuthTokens,
  ProtocolError,
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
