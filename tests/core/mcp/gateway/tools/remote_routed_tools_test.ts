import {
  assert,
  assertEquals,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import type { ToolContext } from "../../../../../src/core/tool_source.ts";
import type { McpTransport } from "../../../../../src/core/mcp/mcp_transport.ts";
import { Server } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import {
  type ConnectionLookup,
  RemoteRoutedTools,
} from "../../../../../src/core/mcp/gateway/tools/remote_routed_tools.ts";
import { ToolError } from "../../../../../src/core/tool_error.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";
import { toolOutput } from "../../../../../src/core/tool_output.ts";

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, object> };
  outputSchema?: { type: "object"; properties?: Record<string, object> };
  annotations?: Record<string, unknown>;
}

/** A ready connection to a real in-memory SDK server listing `tools` (changeable later). */
async function connected(id: string, tools: ListedTool[]) {
  let server!: Server;
  const connection = new ServerConnection({
    serverId: id,
    config: { url: "http://127.0.0.1:9/mcp" },
    connectTimeoutMs: 1000,
    maxResponseBytes: 100_000,
    requestTimeoutMs: 1000,
    reconnect: { initialDelayMs: 10, maxDelayMs: 10, factor: 2, attempts: 1 },
    emit: () => {},
    transportFactory: async () => {
      server = new Server({ name: id, version: "1.0.0" }, {
        capabilities: { tools: { listChanged: true } },
      });
      server.setRequestHandler("tools/list", () => ({ tools }) as never);
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return client as unknown as McpTransport;
    },
  });
  await connection.listTools();
  return {
    id,
    connection,
    /** Replaces the tool list and waits until the connection has listed it again. */
    change: async (next: ListedTool[]) => {
      const version = connection.version;
      tools.splice(0, tools.length, ...next);
      await server.sendToolListChanged();
      for (let i = 0; i < 100 && connection.version === version; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert(connection.version > version);
    },
  };
}

const object = { type: "object" as const };
const noRun: ConnectionLookup = { connection: () => undefined };

Deno.test("RemoteRoutedTools.build() turns listed tools into frozen RoutedTools", async () => {
  const server = await connected("crm", [
    {
      name: "find",
      title: "Find",
      description: "Finds a customer",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      outputSchema: { type: "object", properties: { id: { type: "string" } } },
      annotations: { readOnlyHint: true },
    },
    { name: "titled", title: "Only a title", inputSchema: object },
    { name: "bare", inputSchema: object },
  ]);
  const tools = new RemoteRoutedTools().build("user_mcp", [server], noRun, "user:alice");
  assertEquals(tools.map((t) => [t.name, t.description, t.source, t.origin]), [
    ["find", "Finds a customer", "user_mcp", "crm/find"],
    ["titled", "Only a title", "user_mcp", "crm/titled"],
    ["bare", "", "user_mcp", "crm/bare"],
  ]);
  assertEquals(tools[0].inputSchema, { type: "object", properties: { q: { type: "string" } } });
  assertEquals(tools[0].outputSchema, { type: "object", properties: { id: { type: "string" } } });
  assertEquals(tools[0].annotations, { readOnlyHint: true });
  assertEquals("outputSchema" in tools[2], false);
  assertEquals("annotations" in tools[2], false);
  assert(tools.every((t) => Object.isFrozen(t)));
  await server.connection.close();
});

Deno.test("RemoteRoutedTools.build() qualifies names two servers of a tier share", async () => {
  const one = await connected("one", [{ name: "echo", inputSchema: object }]);
  const two = await connected("two", [
    { name: "echo", inputSchema: object },
    { name: "only.two", inputSchema: object },
  ]);
  const tools = new RemoteRoutedTools().build("global_mcp", [one, two], noRun, "global");
  assertEquals(tools.map((t) => [t.name, t.origin]), [
    ["one_echo", "one/echo"],
    ["two_echo", "two/echo"],
    ["two_only_two", "two/only.two"],
  ]);
  await one.connection.close();
  await two.connection.close();
});

Deno.test("RemoteRoutedTools tools look their connection up at call time and call the original name", async () => {
  const server = await connected("files", [{ name: "read.file", inputSchema: object }]);
  const seen: unknown[] = [];
  const signal = new AbortController().signal;
  const looked: string[] = [];
  let present = true;
  const lookup: ConnectionLookup = {
    userId: "u",
    connection(serverId) {
      looked.push(serverId);
      if (!present) return undefined;
      return {
        callTool(toolName, args, context: ToolContext) {
          seen.push([toolName, args, context.signal === signal, context.userId]);
          return Promise.resolve(toolOutput({ content: [{ type: "text", text: "read" }] }));
        },
      };
    },
  };
  const [tool] = new RemoteRoutedTools().build("user_mcp", [server], lookup, "user:u");
  assertEquals(tool.name, "files_read_file");
  assertEquals(await tool.execute({ path: "a.txt" }, { signal, userId: "u" }), {
    content: [{ type: "text", text: "read" }],
  });
  assertEquals(seen, [["read.file", { path: "a.txt" }, true, "u"]]);
  const other = await assertRejects(
    async () => await tool.execute({}, { signal, userId: "mallory" }),
    ToolError,
  );
  assertEquals(other.code, "permission_denied");
  present = false;
  const gone = await assertRejects(
    async () => await tool.execute({}, { signal, userId: "u" }),
    ToolError,
  );
  assertEquals(gone.code, "upstream_unavailable");
  assertEquals(looked, ["files", "files"]);
  await server.connection.close();
});

Deno.test("RemoteRoutedTools caches per key, servers and tool list version", async () => {
  const a = await connected("a", [{ name: "x", inputSchema: object }]);
  const b = await connected("b", [{ name: "y", inputSchema: object }]);
  const cache = new RemoteRoutedTools();
  const first = cache.build("global_mcp", [a, b], noRun, "global");
  assertStrictEquals(cache.build("global_mcp", [a, b], noRun, "global"), first);
  assertNotStrictEquals(cache.build("user_mcp", [a, b], noRun, "user:bob"), first);
  assertNotStrictEquals(cache.build("global_mcp", [b, a], noRun, "global"), first);
  assertNotStrictEquals(cache.build("global_mcp", [a], noRun, "global"), first);
  await a.change([{ name: "x", inputSchema: object }, { name: "z", inputSchema: object }]);
  const changed = cache.build("global_mcp", [a, b], noRun, "global");
  assertNotStrictEquals(changed, first);
  assertEquals(changed.map((t) => t.name), ["x", "z", "y"]);
  await a.connection.close();
  await b.connection.close();
});

Deno.test("RemoteRoutedTools never confuses two connections of one server id", async () => {
  const old = await connected("s", [{ name: "old", inputSchema: object }]);
  const cache = new RemoteRoutedTools();
  const before = cache.build("global_mcp", [old], noRun, "global");
  const renewed = await connected("s", [{ name: "new", inputSchema: object }]);
  assertEquals(renewed.connection.version, old.connection.version);
  const after = cache.build("global_mcp", [renewed], noRun, "global");
  assertEquals([before[0].name, after[0].name], ["old", "new"]);
  await old.connection.close();
  await renewed.connection.close();
});

Deno.test("RemoteRoutedTools keeps at most 256 lists, dropping the oldest first", async () => {
  const server = await connected("s", [{ name: "t", inputSchema: object }]);
  const cache = new RemoteRoutedTools();
  const lists = Array.from(
    { length: 257 },
    (_, i) => cache.build("user_mcp", [server], noRun, `user:${i}`),
  );
  assertStrictEquals(cache.build("user_mcp", [server], noRun, "user:2"), lists[2]);
  assertNotStrictEquals(cache.build("user_mcp", [server], noRun, "user:0"), lists[0]);
  assertStrictEquals(cache.build("user_mcp", [server], noRun, "user:256"), lists[256]);
  await server.connection.close();
});
