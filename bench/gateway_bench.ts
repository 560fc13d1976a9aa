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
 * Run: `deno bench --config bench/deno.json --no-prompt -A bench/gateway_bench.ts`. On a shared, loaded machine the "call"
 * group drifts with the load between its benches; `gateway_call_interleaved.ts` measures the same
 * four calls interleaved.
 *
 * @module
 */

// Comparison-only peers: imported here, never dependencies of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
// deno-lint-ignore no-import-prefix
import { MultiServerMCPClient } from "npm:@langchain/mcp-adapters@1.1.4";
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";

/** Starts the bench servers in a child process; closing its stdin stops it. */
async function startServers(servers: number, tools: number, delay = 0): Promise<string[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      new URL("./_gateway_bench_server.ts", import.meta.url).pathname,
      `--servers=${servers}`,
      `--tools=${tools}`,
      `--delay=${delay}`,
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
const farUrls = await startServers(20, 50, 25);
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
// Connected lazily, in the first (warm-up) iteration, so the call group above runs undisturbed.
let wideWarm: Promise<unknown> | undefined;

Deno.bench(
  { name: "expose 20 servers x 50 tools, cached", group: "expose", baseline: true },
  async () => {
    await (wideWarm ??= wide.expose({ mcpServers: wideIds }).then((set) => {
      if (set.tools.length !== 1000) {
        throw new Error(`Expected 1000 tools: ${JSON.stringify(set.missing)}`);
      }
    }));
    await wide.expose({ mcpServers: wideIds });
  },
);
/** The floor of a cold expose: the raw SDK connecting to each server and listing its tools. */
async function rawConnectAndList(urls: string[]): Promise<void> {
  const clients = urls.map(() => new Client({ name: "bench", version: "1.0.0" }));
  await Promise.all(clients.map(async (client, i) => {
    await client.connect(new StreamableHTTPClientTransport(new URL(urls[i])));
    await client.listTools();
  }));
  await Promise.all(clients.map((client) => client.close()));
}

/** A cold `expose` of every server on a fresh gateway, then `close()`. */
async function coldExpose(urls: string[], oneByOne = false): Promise<void> {
  const servers = Object.fromEntries(urls.map((url, i) => [`s${i}`, { url }]));
  await using cold = new McpGateway({ servers });
  const coldRouter = new ToolRouter({ gateway: cold });
  const ids = Object.keys(servers);
  if (oneByOne) { for (const id of ids) await coldRouter.expose({ mcpServers: [id] }); }
  else {
    const set = await coldRouter.expose({ mcpServers: ids });
    if (set.tools.length !== 50 * ids.length) {
      throw new Error(`Missing: ${JSON.stringify(set.missing)}`);
    }
  }
}

// Servers "far away" (every HTTP request held 25 ms): parallel connects cost about one connect.
// Each iteration includes closing what it opened (raw and toolroute alike).
Deno.bench(
  { name: "raw SDK: 1 far server connect + listTools", group: "cold", baseline: true, n: 20 },
  async () => await rawConnectAndList(farUrls.slice(0, 1)),
);
Deno.bench(
  { name: "toolroute: expose 1 far server x 50 tools, cold", group: "cold", n: 20 },
  async () => await coldExpose(farUrls.slice(0, 1)),
);
Deno.bench(
  { name: "raw SDK: 20 far servers connect + listTools, in parallel", group: "cold", n: 20 },
  async () => await rawConnectAndList(farUrls),
);
Deno.bench(
  { name: "toolroute: expose 20 far servers x 50 tools, cold", group: "cold", n: 20 },
  async () => await coldExpose(farUrls),
);
Deno.bench(
  { name: "toolroute: 20 far servers exposed one after another, cold", group: "cold", n: 5 },
  async () => await coldExpose(farUrls, true),
);
// Loopback servers with no delay: all 20 share one server process on the same cores, so the
// server's CPU bounds both clients alike.
Deno.bench(
  {
    name: "raw SDK: 20 loopback servers, in parallel",
    group: "cold-loopback",
    baseline: true,
    n: 20,
  },
  async () => await rawConnectAndList(wideUrls),
);
Deno.bench(
  { name: "toolroute: expose 20 loopback servers, cold", group: "cold-loopback", n: 20 },
  async () => await coldExpose(wideUrls),
);

// 1 000 concurrent calls over 100 users, each user on one of 10 user servers with its own token.
const users = new McpGateway();
const userRouter = new ToolRouter({ gateway: users });
for (let u = 0; u < 100; u++) {
  users.addUserServer(`user${u}`, "mine", {
    url: userUrls[u % 10],
    headers: { authorization: `Bearer token-${u}` },
  });
}
// Exposed (and connected) in the warm-up iteration.
let userSetsReady: Promise<Awaited<ReturnType<typeof userRouter.expose>>[]> | undefined;

Deno.bench(
  { name: "1000 concurrent calls, 100 users, 10 user servers", group: "users", n: 10, warmup: 1 },
  async () => {
    const userSets = await (userSetsReady ??= Promise.all(
      Array.from(
        { length: 100 },
        (_, u) => userRouter.expose({ mcpServers: ["mine"], userId: `user${u}` }),
      ),
    ));
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
