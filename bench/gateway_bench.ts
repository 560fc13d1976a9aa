/**
 * Gateway cost, as ratios within one run, against SDK servers in a separate process
 * (`_gateway_bench_server.ts`), so client and server costs are not mixed:
 *
 * - call: a trivial tool (`echo`) through `toolSet.invoke`, the raw SDK `Client.callTool`,
 *   `@ai-sdk/mcp` (`createMCPClient`, the tool's `execute`) and `@langchain/mcp-adapters`
 *   (`MultiServerMCPClient`, the tool's `invoke`); the peers are comparison-only imports here;
 * - expose: 20 servers of 50 tools, cached, cold (20 connections in parallel) and one cold server;
 * - users: 1 000 concurrent calls over 100 users on 10 user servers, each result checked to be the
 *   caller's own.
 *
 * Run: `deno bench --no-prompt -A bench/gateway_bench.ts`
 *
 * @module
 */

// Comparison-only peers: imported here, never dependencies of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
// deno-lint-ignore no-import-prefix
import { MultiServerMCPClient } from "npm:@langchain/mcp-adapters@1.1.4";
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { McpGateway, ToolRouter } from "../mod.ts";

/** Starts the bench servers in a child process; closing its stdin stops it. */
async function startServers(servers: number, tools: number): Promise<string[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      new URL("./_gateway_bench_server.ts", import.meta.url).pathname,
      `--servers=${servers}`,
      `--tools=${tools}`,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("The bench servers exited before printing their URLs");
    text += value;
  }
  reader.releaseLock();
  child.unref();
  return JSON.parse(text.trim());
}

const [echoUrl] = await startServers(1, 5);
const wideUrls = await startServers(20, 50);
const userUrls = await startServers(10, 5);

// The same server for all four clients; each connects once, before the runs.
const raw = new Client({ name: "bench", version: "1.0.0" });
await raw.connect(new StreamableHTTPClientTransport(new URL(echoUrl)));

const gateway = new McpGateway({ servers: { echo: { url: echoUrl } } });
const router = new ToolRouter({ gateway });
const toolSet = await router.expose({ mcpServers: ["echo"] });

const aiClient = await createMCPClient({ transport: { type: "http", url: echoUrl } });
const aiEcho = (await aiClient.tools()).echo;

const lcClient = new MultiServerMCPClient({
  mcpServers: { echo: { url: echoUrl, transport: "http" } },
});
const lcEcho = (await lcClient.getTools()).find((tool) => tool.name.endsWith("echo"))!;

Deno.bench({ name: "raw SDK Client.callTool", group: "call", baseline: true }, async () => {
  await raw.callTool({ name: "echo", arguments: { text: "hi" } });
});
Deno.bench({ name: "toolroute toolSet.invoke", group: "call" }, async () => {
  const text = await toolSet.invoke("echo", '{"text":"hi"}');
  if (text !== "hi") throw new Error(`Unexpected result ${text}`);
});
Deno.bench({ name: "@ai-sdk/mcp tool.execute", group: "call" }, async () => {
  await aiEcho.execute!({ text: "hi" }, { toolCallId: "1", messages: [], context: {} });
});
Deno.bench({ name: "@langchain/mcp-adapters tool.invoke", group: "call" }, async () => {
  await lcEcho.invoke({ text: "hi" });
});

// expose(): 20 servers of 50 tools.
const wideServers = Object.fromEntries(wideUrls.map((url, i) => [`wide${i}`, { url }]));
const wideIds = Object.keys(wideServers);
const wide = new ToolRouter({ gateway: new McpGateway({ servers: wideServers }) });
const warm = await wide.expose({ mcpServers: wideIds });
if (warm.tools.length !== 20 * 50) throw new Error(`Expected 1000 tools, got ${warm.tools.length}`);

Deno.bench(
  { name: "expose 20 servers x 50 tools, cached", group: "expose", baseline: true },
  async () => {
    await wide.expose({ mcpServers: wideIds });
  },
);
/** The floor of a cold expose: the raw SDK connecting and listing tools, then closing. */
async function rawConnectAndList(url: string): Promise<number> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  await client.close();
  return tools.length;
}

Deno.bench(
  { name: "raw SDK: 1 server connect + listTools", group: "cold", baseline: true, n: 20 },
  async () => {
    await rawConnectAndList(wideUrls[0]);
  },
);
Deno.bench(
  { name: "toolroute: expose 1 server x 50 tools, cold", group: "cold", n: 20 },
  async () => {
    await using cold = new McpGateway({ servers: { wide0: { url: wideUrls[0] } } });
    await new ToolRouter({ gateway: cold }).expose({ mcpServers: ["wide0"] });
  },
);
Deno.bench(
  { name: "raw SDK: 20 servers connect + listTools, in parallel", group: "cold", n: 20 },
  async () => {
    await Promise.all(wideUrls.map(rawConnectAndList));
  },
);
Deno.bench(
  { name: "toolroute: expose 20 servers x 50 tools, cold", group: "cold", n: 20 },
  async () => {
    await using cold = new McpGateway({ servers: wideServers });
    const set = await new ToolRouter({ gateway: cold }).expose({ mcpServers: wideIds });
    if (set.tools.length !== 1000) throw new Error(`Expected 1000 tools, got ${set.tools.length}`);
  },
);
Deno.bench(
  { name: "toolroute: 20 servers exposed one after another, cold", group: "cold", n: 10 },
  async () => {
    await using cold = new McpGateway({ servers: wideServers });
    const coldRouter = new ToolRouter({ gateway: cold });
    for (const id of wideIds) await coldRouter.expose({ mcpServers: [id] });
  },
);

// 1 000 concurrent calls over 100 users, each user on one of 10 user servers with its own token.
const users = new McpGateway();
const userRouter = new ToolRouter({ gateway: users });
const userSets = await Promise.all(Array.from({ length: 100 }, (_, u) => {
  users.addUserServer(`user${u}`, "mine", {
    url: userUrls[u % 10],
    headers: { authorization: `Bearer token-${u}` },
  });
  return userRouter.expose({ mcpServers: ["mine"], userId: `user${u}` });
}));

Deno.bench(
  { name: "1000 concurrent calls, 100 users, 10 user servers", group: "users", n: 10 },
  async () => {
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => userSets[i % 100].invoke("whoami", "{}")),
    );
    results.forEach((text, i) => {
      if (text !== `Bearer token-${i % 100}`) {
        throw new Error(`Call ${i} got ${text}: cross-user result`);
      }
    });
  },
);
