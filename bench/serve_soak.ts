/**
 * Soak of `serve --http` (in this process, as `tests/_helpers/serve_http_in_process.ts` starts
 * it): what a long-running serve keeps as users, sessions and requests come and go. The config has
 * bearer-token users (`users` per round are new each round and never come back, plus 20 regulars
 * who come every round), a function module (`_soak_tools.ts`), a global loopback MCP server and
 * one of each user's own (both `_era_bench_server.ts`, which answers both eras), a policy that
 * asks before `soak_guarded` and counts `soak_echo` per user in a one-second window, and a result
 * budget (`maxResultChars`) small enough that `soak_big` is cut and read back by `read_result`.
 * Each user sends 2026-07-28 requests (list, calls of all three kinds, a read of the cut result)
 * and opens a 2025 session that calls too; half the sessions are closed (DELETE), half are left
 * open. After each round the process collects garbage and prints heap used and RSS; growth that is
 * linear in the rounds (distinct users, sessions, windows) and never levels off is a leak.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A --v8-flags=--expose-gc
 * bench/serve_soak.ts [rounds=8] [users=300] [snapshot-folder]`. With a folder, a V8 heap
 * snapshot is written there after round 2 and after the last (`round_N.heapsnapshot`), to
 * compare what the later rounds added.
 *
 * @module
 */
import v8 from "node:v8";
import { startBenchServer } from "./_bench_server.ts";
import { startServeHttp } from "../tests/_helpers/serve_http_in_process.ts";

const rounds = Number(Deno.args[0] ?? 8);
const perRound = Number(Deno.args[1] ?? 300);
const snapshots = Deno.args[2];
const REGULARS = 20;
const CONCURRENCY = 16;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

const upstream = await startBenchServer("./_era_bench_server.ts", { args: ["--json"] });
const users = Array.from({ length: REGULARS + rounds * perRound }, (_, i) => ({
  id: `u${i}`,
  token: `soak-token-${i}-0123456789abcdef`,
}));
await using serve = await startServeHttp({
  modules: [new URL("./_soak_tools.ts", import.meta.url).pathname],
  mcpServers: { up: { url: upstream.line } },
  users: users.map((user, i) => ({
    tokenVariable: `SOAK_TOKEN_${i}`,
    id: user.id,
    mcpServers: { mine: { url: upstream.line } },
  })),
  maxResultChars: 400,
  policy: {
    allow: ["*"],
    ask: ["soak_guarded"],
    default: "allow",
    limits: [{ match: "soak_echo", max: 1_000, windowMs: 1_000 }],
  },
}, { tokens: Object.fromEntries(users.map((user) => [user.token, user.id])) });

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
let failures = 0;
let firstFailure = "";
/** What the calls met: results cut and read back, approvals asked for. */
const met = { cut: 0, read: 0, asked: 0 };

/** One JSON-RPC request; returns the answer's `result` (or `undefined`) and its session id. */
async function rpc(
  token: string,
  message: { method: string; params?: Record<string, unknown>; id?: number },
  session?: { id?: string; modern?: boolean },
): Promise<{ result: unknown; sessionId: string | null }> {
  const modern = session?.modern === true;
  const params = modern ? { ...message.params, _meta: MODERN_META } : message.params;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${token}`,
  };
  if (modern) {
    headers["mcp-protocol-version"] = "2026-07-28";
    headers["mcp-method"] = message.method;
    const name = (message.params as { name?: string } | undefined)?.name;
    if (name !== undefined) headers["mcp-name"] = name;
  } else if (session?.id !== undefined) {
    headers["mcp-session-id"] = session.id;
    headers["mcp-protocol-version"] = "2025-06-18";
  }
  const body = { jsonrpc: "2.0", ...message, ...(params === undefined ? {} : { params }) };
  const response = await fetch(serve.url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (message.id === undefined) return { result: undefined, sessionId };
  const json = text.startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(text.split("\n").filter((l) => l.startsWith("data: ")).at(-1)!.slice(6));
  if (json.error !== undefined) {
    failures++;
    firstFailure ||= `${message.method}: ${JSON.stringify(json.error).slice(0, 200)}`;
  }
  return { result: json.result, sessionId };
}

let names: string[] = [];
const call = async (
  token: string,
  name: string,
  args: Record<string, unknown>,
  session?: { id?: string; modern?: boolean },
) =>
  (await rpc(token, { id: 2, method: "tools/call", params: { name, arguments: args } }, session))
    .result as { content?: { text?: string }[]; isError?: boolean } | undefined;

/** One user's visit: 2026-07-28 requests, then a 2025 session, closed when `close`. */
async function visit(user: { token: string }, close: boolean): Promise<void> {
  const modern = { modern: true };
  const listed = (await rpc(user.token, { id: 1, method: "tools/list" }, modern)).result as {
    tools: { name: string }[];
  };
  if (names.length === 0) names = listed.tools.map((tool) => tool.name);
  await call(user.token, "soak_echo", { text: "hi" }, modern);
  const guarded = await call(user.token, "soak_guarded", { text: "hi" }, modern);
  if (guarded?.isError && /approv/i.test(guarded.content?.[0]?.text ?? "")) met.asked++;
  const cut = await call(user.token, "soak_big", { seed: "x" }, modern);
  const handle = cut?.content?.[0]?.text?.match(/"handle":"(res_[a-z0-9]+)"/)?.[1];
  if (handle !== undefined) {
    met.cut++;
    const page = await call(user.token, "read_result", { handle }, modern);
    if (page?.isError !== true) met.read++;
  }
  for (const remote of names.filter((name) => /echo/.test(name) && !name.startsWith("soak"))) {
    await call(user.token, remote, { text: "hi" }, modern);
  }
  const init = await rpc(user.token, {
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "soak", version: "1" },
    },
  });
  const session = { id: init.sessionId ?? undefined };
  await rpc(user.token, { method: "notifications/initialized" }, session);
  await call(user.token, "soak_echo", { text: "hi" }, session);
  await call(user.token, "soak_big", { seed: "y" }, session);
  if (close && session.id !== undefined) {
    await (await fetch(serve.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${user.token}`, "mcp-session-id": session.id },
    })).body?.cancel();
  }
}

async function measure(label: string): Promise<void> {
  // The in-process helper keeps every call's event and log line (for tests): not serve's.
  serve.events.length = 0;
  serve.logs.length = 0;
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { heapUsed, rss } = Deno.memoryUsage();
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1).padStart(6);
  console.log(
    `${label.padEnd(9)} heap ${mb(heapUsed)} MB  rss ${mb(rss)} MB  failures ${failures}  ` +
      `cut ${met.cut} read ${met.read} asked ${met.asked}` +
      (firstFailure ? `  (first: ${firstFailure})` : ""),
  );
}

const started = performance.now();
await measure("start");
for (let round = 0; round < rounds; round++) {
  const fresh = users.slice(REGULARS + round * perRound, REGULARS + (round + 1) * perRound);
  const queue = [...users.slice(0, REGULARS), ...fresh];
  let visits = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
      await visit(user, visits++ % 2 === 0);
    }
  }));
  await measure(`round ${round + 1}`);
  if (snapshots !== undefined && (round === 1 || round === rounds - 1)) {
    v8.writeHeapSnapshot(`${snapshots}/round_${round + 1}.heapsnapshot`);
  }
}
console.log(
  `${rounds} rounds of ${perRound} new users and ${REGULARS} regulars in ${
    ((performance.now() - started) / 1000).toFixed(0)
  } s; tools: ${names.join(", ")}`,
);
await serve.stop();
await upstream.close();
