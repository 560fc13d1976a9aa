/**
 * Per-call latency of a trivial tool, measured interleaved: each round calls the raw SDK,
 * toolroute, `@ai-sdk/mcp` and `@langchain/mcp-adapters` once each (in a shuffled order), so load
 * from other processes on a shared machine hits all four alike. `deno bench` runs its benches one
 * after another, and on a loaded machine its "call" group mostly measures the load's drift.
 *
 * With `--progress-candidate`, a fifth candidate: the raw SDK asked for a progress token with each
 * call, so that progress restarts the call's deadline (`onprogress`, `resetTimeoutOnProgress`, 60 s
 * up to 240 s). The token costs the upstream work (the SDK's server parses `_meta` three times: 3–4
 * µs of a 55 µs local call; on our side 0.25 µs). It was added in session 21, when toolroute's
 * gateway sent a token with every call; now it sends one only where it can be of use (a listener,
 * the first call of a tool, a tool that reported progress; `progressTokens: "always"` for all), so
 * after its first call the bench's `echo` carries none, and the default mix is the four
 * candidates again (session 23: the fifth, a second user of the raw SDK's code, kept that code warm
 * for the raw candidate; see the mix note below).
 *
 * Both upstream kinds are measured in the same rounds: one answering with SSE streams, one with
 * plain JSON (`enableJsonResponse`, as stateless servers often do).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/gateway_call_interleaved.ts [rounds=1000] [--progress-candidate] [--secret]`; prints medians and p99s,
 * each with its ratio to the raw SDK's.
 *
 * With `--secret`, every candidate sends an `Authorization: Bearer …` header, so toolroute's
 * connection has a secret to keep out of results and scans each result for it (the common case,
 * no secret configured, scans nothing).
 *
 * Session 21 also moved the deadlines of a connection's direct requests onto one timer (a
 * `setTimeout` + `clearTimeout` pair per call cost about 3 µs in Deno; see `docs/benchmarks.md`).
 *
 * Where toolroute's time went (issue 11, session 20; CPU profiles of the client process and
 * timings around the transport): the client is idle waiting for the server about two thirds of
 * a call. Of the busy rest, the runtime's `fetch` is the largest part; the SDK's share was its
 * request machinery (a zod parse of every message and of the result, progress and timeout maps),
 * its transport's `TextDecoderStream` + `EventSourceParserStream` pipes and, before them, our
 * own guarding stream per POST. A `tools/call` now goes straight over HTTP
 * (`gateway/direct/direct_request.ts`): one bounded read loop parses a JSON body or an event stream, the
 * SDK client still does what surrounds the round trip (output-schema validation) and receives
 * every other message. What is left above the transport (arguments, pins, escaping, result
 * shaping, telemetry off) measured 7–9 µs per call run alone, 3.1–3.4 µs after a second pass
 * removed work that changed nothing (copies, clock reads, promise layers; see
 * `docs/benchmarks.md`); interleaved it costs several times that. A fixed cyclic order biased the figures
 * (each candidate always ran after the same one and paid for its leftover work, such as an event
 * stream read to its end after the answer), hence the shuffled order.
 *
 * The mix of candidates moves the ratios (session 22, `docs/benchmarks.md`): a candidate's time
 * depends on how much code it shares with the others, which keep that code warm in the caches.
 * Of the eight default candidates, four run the SDK client's code (raw and LangChain, on both
 * upstreams), two run toolroute's; with the fifth candidate, six of ten ran the SDK's code and
 * toolroute's JSON ratio measured 0.97–1.01× instead of 0.95–0.96× (session 23); with three more
 * toolroute gateways added, toolroute measured 0.81–0.85× (session 22).
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

const rounds = Number(Deno.args.find((arg) => !arg.startsWith("--")) ?? 1000);
const progressCandidate = Deno.args.includes("--progress-candidate");
const headers: Record<string, string> = Deno.args.includes("--secret")
  ? { authorization: "Bearer bench-0123456789abcdef0123456789abcdef" }
  : {};

/** Starts the bench server (SSE answers, or plain JSON with `json`) and returns its URL. */
async function startServer(json: boolean) {
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      new URL("./_gateway_bench_server.ts", import.meta.url).pathname,
      "--servers=1",
      ...(json ? ["--json"] : []),
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const [url]: string[] = JSON.parse((await lines.read()).value!);
  return {
    url,
    async stop() {
      await server.stdin.close();
      await lines.cancel();
      await server.status;
    },
  };
}

/** The four clients of one server. */
async function clientsOf(url: string) {
  const raw = new Client({ name: "bench", version: "1.0.0" });
  await raw.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const gateway = new McpGateway({ servers: { echo: { url, headers } } });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["echo"] });
  const ai = await createMCPClient({ transport: { type: "http", url, headers } });
  const aiEcho = (await ai.tools()).echo;
  const lc = new MultiServerMCPClient({
    mcpServers: { echo: { url, transport: "http", headers } },
  });
  const lcEcho = (await lc.getTools()).find((tool) => tool.name.endsWith("echo"))!;
  const calls: Record<string, () => Promise<unknown>> = {
    "raw SDK Client.callTool": () => raw.callTool({ name: "echo", arguments: { text: "hi" } }),
    // The raw SDK asked for a progress token with every call, so that progress restarts the 60 s
    // deadline up to 240 s (toolroute's former default). The token is work for the upstream.
    ...(progressCandidate
      ? {
        "raw SDK, progress extends deadline": () =>
          raw.callTool({ name: "echo", arguments: { text: "hi" } }, {
            onprogress: () => {},
            resetTimeoutOnProgress: true,
            timeout: 60_000,
            maxTotalTimeout: 240_000,
          }),
      }
      : {}),
    "toolroute toolSet.invoke": () => toolSet.invoke("echo", '{"text":"hi"}'),
    "@ai-sdk/mcp tool.execute": async () =>
      await aiEcho.execute!({ text: "hi" }, { toolCallId: "1", messages: [], context: {} }),
    "@langchain/mcp-adapters tool.invoke": () => lcEcho.invoke({ text: "hi" }),
  };
  const close = async () => {
    await raw.close();
    await ai.close();
    await lc.close();
    await gateway.close();
  };
  return { calls, close };
}

const sse = await startServer(false);
const json = await startServer(true);
const modes = { sse: await clientsOf(sse.url), json: await clientsOf(json.url) };
// Every call of one round, both upstream kinds interleaved, so load hits all alike.
const clients: Record<string, () => Promise<unknown>> = {};
for (const [mode, { calls }] of Object.entries(modes)) {
  for (const [name, call] of Object.entries(calls)) clients[`${mode}: ${name}`] = call;
}
const names = Object.keys(clients);
const times = new Map(names.map((name) => [name, [] as number[]]));
// Each round runs the candidates in a fresh random order (seeded, so runs repeat): a fixed cyclic
// order gives every candidate the same predecessor, whose leftover work (a stream read to its
// end after the answer, timers cleared late) then always lands on the same next candidate.
let seed = 0x5eed;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const order = [...names];
for (let round = -100; round < rounds; round++) { // 100 warm-up rounds
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const name of order) {
    const started = performance.now();
    await clients[name]();
    if (round >= 0) times.get(name)!.push(performance.now() - started);
  }
}
const quantile = (values: number[], q: number) =>
  values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];
for (const mode of Object.keys(modes)) {
  const base = times.get(`${mode}: raw SDK Client.callTool`)!;
  const [baseMedian, baseP99] = [quantile(base, 0.5), quantile(base, 0.99)];
  console.log(`upstream answering with ${mode === "sse" ? "SSE streams" : "plain JSON"}:`);
  for (const name of names.filter((entry) => entry.startsWith(`${mode}: `))) {
    const values = times.get(name)!;
    const [median, p99] = [quantile(values, 0.5), quantile(values, 0.99)];
    console.log(
      `  ${name.slice(mode.length + 2).padEnd(38)} median ${median.toFixed(3)} ms  ${
        (median / baseMedian).toFixed(2)
      }x raw   p99 ${p99.toFixed(3)} ms  ${(p99 / baseP99).toFixed(2)}x raw`,
    );
  }
}

for (const { close } of Object.values(modes)) await close();
await sse.stop();
await json.stop();
