/**
 * Memory and cold start per pooled user connection: `users` users each add one server (a stateless JSON server in
 * its own process), expose it and make one call, through toolroute's gateway and, in another process, through the
 * raw SDK `Client` doing the same (connect, list, call, keep open). Each side runs in a fresh process so RSS is its
 * own; RSS is read after a full GC, once right after the last call ("hot") and once all users have
 * been idle for 1.5 s (the gateway parks an idle user connection over HTTP after 1 s: its SDK
 * client is let go, the next call builds one without a round trip, from the discover verdict of a
 * 2026-07-28 server or on the session of a 2025 one).
 *
 * Run: `deno run --no-prompt -A --v8-flags=--expose-gc bench/user_connections_bench.ts [users=2000] [...more]`
 *
 * `--era=2026-07-28` measures the 2026-07-28 era instead: one dual-era SDK 2.x server
 * (`_era_bench_server.ts`, JSON answers), the raw `Client` pinned to 2026-07-28 and the gateway's
 * servers set to `protocol: "2026-07-28"`; `--era=2025` pins both sides to 2025 on that same server.
 * `--memory-only` leaves out the interleaved cold-start run and the churn.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";

const self = new URL(import.meta.url).pathname;
type Side = "toolroute" | "raw";
/** Which server and era: the stateless 2025 server (default), or the dual-era one pinned. */
type Era = "stateless" | "2025" | "2026-07-28";

interface Figures {
  side: Side;
  users: number;
  rssPerUserKb: number;
  /** RSS added by the second half of the users alone: the steady cost of one more connection. */
  marginalRssPerUserKb: number;
  heapPerUserKb: number;
  /** Heap per user right after the last call, before idle connections are parked. */
  hotHeapPerUserKb: number;
  heapTotalPerUserKb: number;
  /** Memory outside the V8 heap that V8 is told of (array buffers' stores and such), per user. */
  externalPerUserKb: number;
  fdsPerUser: number;
  coldMs: { median: number; p99: number };
  totalRssMb: number;
}

if (Deno.args[0] === "--child") {
  const [, side, url, users, era] = Deno.args;
  console.log(JSON.stringify(await measure(side as Side, url, Number(users), era as Era)));
  Deno.exit(0); // the figures are out; lingering client streams must not hold the run
} else if (Deno.args[0] === "--churn") {
  const [, url, users] = Deno.args;
  console.log(JSON.stringify(await churn(url, Number(users))));
  // No Deno.exit: the parent checks that this process ends by itself (no leaked timers or sockets).
} else if (Deno.args[0] === "--interleaved") {
  const [, url, users] = Deno.args;
  console.log(JSON.stringify(await interleaved(url, Number(users))));
  Deno.exit(0);
} else {
  const flags = Deno.args.filter((arg) => arg.startsWith("--"));
  const era: Era = (flags.find((f) => f.startsWith("--era="))?.slice(6) as Era) ?? "stateless";
  const memoryOnly = flags.includes("--memory-only");
  const numbers = Deno.args.filter((arg) => !arg.startsWith("--"));
  const counts = numbers.length > 0 ? numbers.map(Number) : [2000];
  const server = new Deno.Command(Deno.execPath(), {
    args: era === "stateless"
      ? [
        "run",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        new URL("./_stateless_server.ts", import.meta.url).pathname,
      ]
      : [
        "run",
        "--config",
        new URL("./deno.json", import.meta.url).pathname,
        "--no-prompt",
        "--allow-net=127.0.0.1",
        new URL("./_era_bench_server.ts", import.meta.url).pathname,
        "--json",
      ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const first = (await lines.read()).value!.trim().split("\n")[0];
  const url: string = era === "stateless" ? JSON.parse(first)[0] : first;
  const rows: Figures[] = [];
  const cold: { users: number; raw: number; toolroute: number; unpinned: number }[] = [];
  for (const users of counts) {
    // The raw SDK keeps a standing stream per client: past 2,000 it is measured no further.
    const sides: Side[] = users > 2000 ? ["toolroute"] : ["raw", "toolroute"];
    for (const side of sides) rows.push(await child(side, url, users, era));
    if (memoryOnly) continue;
    cold.push({
      users,
      ...await run<{ raw: number; toolroute: number; unpinned: number }>([
        "--interleaved",
        url,
        String(Math.min(users, 2000)),
      ]),
    });
  }
  const churnUsers = memoryOnly ? 0 : Math.max(...counts);
  const churnChild = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", self, "--churn", url, String(churnUsers)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const churnOut = (await new Response(churnChild.stdout).text()).trim();
  const exited = await Promise.race([
    churnChild.status.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000)),
  ]);
  if (!exited) churnChild.kill("SIGKILL");
  await server.stdin.close().catch(() => {});
  if (era !== "stateless") server.kill();
  await server.status;
  console.log(`era: ${era === "stateless" ? "2025 (stateless 2025 server)" : era}`);
  console.log(
    "| users | side | RSS per user | marginal RSS per user (second half) | heap per user, idle (hot) | heap / raw | heap committed per user | external per user | cold connect+list+call median (p99) | total RSS |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const raw = rows.find((row) => row.users === r.users && row.side === "raw");
    console.log(
      `| ${r.users} | ${r.side} | ${r.rssPerUserKb.toFixed(0)} KB | ${
        r.marginalRssPerUserKb.toFixed(0)
      } KB | ${r.heapPerUserKb.toFixed(1)} KB (${r.hotHeapPerUserKb.toFixed(1)}) | ${
        raw === undefined ? "—" : `${(r.heapPerUserKb / raw.heapPerUserKb).toFixed(2)}×`
      } | ${r.heapTotalPerUserKb.toFixed(1)} KB | ${r.externalPerUserKb.toFixed(1)} KB | ` +
        `${r.coldMs.median.toFixed(2)} ms (${r.coldMs.p99.toFixed(2)}) | ${
          r.totalRssMb.toFixed(0)
        } MB |`,
    );
  }
  console.log(
    `churn: ${churnOut}; the process ${exited ? "ended by itself" : "did NOT end by itself"}`,
  );
  for (const { users, raw, toolroute, unpinned } of cold) {
    const ours = rows.find((r) => r.users === users && r.side === "toolroute")!;
    const theirs = rows.find((r) => r.users === Math.min(users, 2000) && r.side === "raw")!;
    console.log(
      `${users} users: cold connect+list+call, interleaved medians: toolroute ${
        toolroute.toFixed(2)
      } ms, ` +
        `raw ${raw.toFixed(2)} ms = ${(toolroute / raw).toFixed(2)}x (pinning off: ${
          unpinned.toFixed(2)
        } ms = ${(unpinned / raw).toFixed(2)}x); RSS per user ` +
        `${(ours.rssPerUserKb / theirs.rssPerUserKb).toFixed(2)}x raw`,
    );
  }
}

function child(side: Side, url: string, users: number, era: Era): Promise<Figures> {
  return run(["--child", side, url, String(users), era]);
}

async function run<T>(args: string[]): Promise<T> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", "--v8-flags=--expose-gc", self, ...args],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`The child ${args.join(" ")} failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/**
 * Idle close and eviction at scale: `users` users call once (20 at a time) through a gateway that
 * pools at most 200 connections and closes idle ones after 1 s; then every connection must close
 * by itself, sockets return to where they were, and users calling again are served transparently.
 */
async function churn(url: string, users: number): Promise<Record<string, number>> {
  let evicted = 0;
  let idleClosed = 0;
  const gateway = new McpGateway({
    maxUserConnections: 200,
    userIdleMs: 1000,
    onEvent(event) {
      if (event.type === "closed" && event.reason === "evicted") evicted++;
      if (event.type === "closed" && event.reason === "idle") idleClosed++;
    },
  });
  const router = new ToolRouter({ gateway });
  const fdsBefore = openFds();
  let maxOpen = 0;
  const open = () => gateway.status().filter((s) => s.state !== "closed").length;
  const call = async (u: number) => {
    const userId = `user-${u}`;
    check(u, await (await router.expose({ mcpServers: ["s"], userId })).invoke("whoami", "{}"));
  };
  const started = performance.now();
  for (let batch = 0; batch < users; batch += 20) {
    await Promise.all(Array.from({ length: Math.min(20, users - batch) }, (_, i) => {
      const u = batch + i;
      gateway.addUserServer(`user-${u}`, "s", {
        url,
        headers: { authorization: `Bearer user-${u}` },
      });
      return call(u);
    }));
    maxOpen = Math.max(maxOpen, open());
  }
  const firstPassMs = performance.now() - started;
  const openAfterCalls = open();
  let waitedMs = 0;
  while (open() > 0 && waitedMs < 30_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    waitedMs += 250;
  }
  const openAfterIdle = open();
  const fdsAfterIdle = openFds() - fdsBefore;
  for (let u = 0; u < users; u += Math.max(1, Math.floor(users / 200))) await call(u);
  const reopened = open();
  await gateway.close();
  return {
    users,
    firstPassMs: Math.round(firstPassMs),
    maxOpen,
    evicted,
    openAfterCalls,
    idleClosed,
    openAfterIdle,
    fdsAfterIdle,
    reopened,
  };
}

/** Cold connect + list + call per user, both sides alternating in one process (load hits both alike). */
async function interleaved(
  url: string,
  users: number,
): Promise<{ raw: number; toolroute: number; unpinned: number }> {
  // `unpinned`: toolroute with `pinning: false`, so the run shows what pinning itself costs.
  const sides = {
    raw: rawSide(url),
    toolroute: toolrouteSide(url),
    unpinned: toolrouteSide(url, false),
  };
  for (const side of Object.values(sides)) await side.user(-1);
  const times = { raw: [] as number[], toolroute: [] as number[], unpinned: [] as number[] };
  const names = Object.keys(sides) as (keyof typeof sides)[];
  for (let u = 0; u < users; u++) {
    const order = names.map((_, i) => names[(u + i) % names.length]);
    for (const side of order) {
      const started = performance.now();
      await sides[side].user(u);
      times[side].push(performance.now() - started);
    }
  }
  const median = (list: number[]) => list.sort((a, b) => a - b)[list.length >> 1];
  return {
    raw: median(times.raw),
    toolroute: median(times.toolroute),
    unpinned: median(times.unpinned),
  };
}

async function measure(side: Side, url: string, users: number, era: Era): Promise<Figures> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const open = side === "raw" ? rawSide(url, era) : toolrouteSide(url, true, era);
  await open.user(-1); // warm the code paths once, outside the figures
  gc();
  const before = Deno.memoryUsage();
  const fdsBefore = openFds();
  const times: number[] = [];
  let half = before;
  for (let u = 0; u < users; u++) {
    if (u === users >> 1) {
      gc();
      half = Deno.memoryUsage();
    }
    const started = performance.now();
    await open.user(u);
    times.push(performance.now() - started);
  }
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const hot = Deno.memoryUsage();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  gc();
  const after = Deno.memoryUsage();
  times.sort((a, b) => a - b);
  const figures: Figures = {
    side,
    users,
    rssPerUserKb: (after.rss - before.rss) / users / 1024,
    marginalRssPerUserKb: (after.rss - half.rss) / (users - (users >> 1)) / 1024,
    heapPerUserKb: (after.heapUsed - before.heapUsed) / users / 1024,
    hotHeapPerUserKb: (hot.heapUsed - before.heapUsed) / users / 1024,
    heapTotalPerUserKb: (after.heapTotal - before.heapTotal) / users / 1024,
    externalPerUserKb: (after.external - before.external) / users / 1024,
    fdsPerUser: (openFds() - fdsBefore) / users,
    coldMs: { median: times[times.length >> 1], p99: times[Math.floor(times.length * 0.99)] },
    totalRssMb: after.rss / 1024 / 1024,
  };
  await open.close();
  return figures;
}

interface Opener {
  user(u: number): Promise<void>;
  close(): Promise<void>;
}

function rawSide(url: string, era: Era = "stateless"): Opener {
  const clients: Client[] = [];
  return {
    async user(u) {
      const client = new Client({ name: "bench", version: "1.0.0" }, {
        versionNegotiation: {
          mode: era === "2026-07-28" ? { pin: "2026-07-28" } : era === "2025" ? "legacy" : "auto",
        },
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer user-${u}` } },
        }),
      );
      await client.listTools();
      const result = await client.callTool({ name: "whoami", arguments: {} });
      check(u, (result.content as { text: string }[])[0].text);
      clients.push(client);
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}

function toolrouteSide(url: string, pinning = true, era: Era = "stateless"): Opener {
  const gateway = new McpGateway({
    maxUserConnections: 1_000_000,
    userIdleMs: 3_600_000,
    pinning,
  });
  const router = new ToolRouter({ gateway });
  return {
    async user(u) {
      const userId = `user-${u}`;
      gateway.addUserServer(userId, "s", {
        url,
        headers: { authorization: `Bearer user-${u}` },
        ...(era === "stateless" ? {} : { protocol: era }),
      });
      const toolSet = await router.expose({ mcpServers: ["s"], userId });
      check(u, await toolSet.invoke("whoami", "{}"));
    },
    async close() {
      await gateway.close();
    },
  };
}

function openFds(): number {
  return [...Deno.readDirSync("/proc/self/fd")].length;
}

function check(u: number, text: string): void {
  const expected = `Bearer user-${u}`;
  if (text !== expected && text !== [...expected].reverse().join("")) {
    throw new Error(`User ${u} got ${JSON.stringify(text)}: cross-user result`);
  }
}
