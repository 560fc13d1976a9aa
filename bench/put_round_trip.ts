/**
 * The floor of a sandboxed write: a bare round trip to a session's supervisor (`ping`) and a
 * `put` of 2,000 bytes over an existing file, against the host's own put (the same file calls:
 * `lstat`, a new file written in one call, the rename over the old one), each spaced by 0, 5 and
 * 50 ms of idle time (in `bench/agent_trace.ts` a write follows other calls, and an idle CPU
 * halts: waking it costs more than a round trip back to back). No walk, no tool layer: what a
 * sandboxed `write_file` pays above an in-process one at least is `put` − host. Medians; the
 * three alternate call by call. Ratios only: the machine is shared.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/put_round_trip.ts [calls=60]`
 *
 * @module
 */
import { SandboxSession } from "../src/deno/sandbox/sandbox_session.ts";

const CALLS = Number(Deno.args[0] ?? 60);
const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_put_round_trip_" }));
const session = await SandboxSession.start({
  mounts: { workspace: { source: ws, dest: ws }, readOnlyRoots: [] },
  path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  startTimeoutMs: 10_000,
});
const options = { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never };
const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1];
const body = new TextEncoder().encode("x".repeat(2000));
const temp = (name: string) => `${ws}/.${name}.${crypto.randomUUID().slice(0, 8)}.tmp`;
Deno.writeFileSync(`${ws}/boxed.ts`, body);
Deno.writeFileSync(`${ws}/host.ts`, body);
const steps = {
  ping: () => session.request({ op: "ping" }, undefined, options),
  put: () =>
    session.request(
      {
        op: "put",
        path: temp("boxed.ts"),
        to: `${ws}/boxed.ts`,
        mode: null,
        identity: null,
        expect: "file-or-absent",
      },
      body,
      options,
    ),
  host: () => {
    const path = temp("host.ts");
    Deno.lstatSync(`${ws}/host.ts`);
    Deno.writeFileSync(path, body, { createNew: true, mode: 0o644 });
    Deno.renameSync(path, `${ws}/host.ts`);
    return Promise.resolve();
  },
};
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
console.log(`load before: ${load()}`);
try {
  for (const gap of [0, 5, 50]) {
    const times: Record<string, number[]> = { ping: [], put: [], host: [] };
    for (let i = 0; i < CALLS; i++) {
      for (const [name, step] of Object.entries(steps)) {
        if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
        const started = performance.now();
        await step();
        times[name].push(performance.now() - started);
      }
    }
    const [ping, put, host] = [times.ping, times.put, times.host].map(median);
    console.log(
      `gap ${gap} ms: ping ${ping.toFixed(3)} ms, put ${put.toFixed(3)} ms, host's put ` +
        `${host.toFixed(3)} ms, put − host ${(put - host).toFixed(3)} ms`,
    );
  }
} finally {
  await session.close();
  await Deno.remove(ws, { recursive: true });
  console.log(`load after: ${load()}`);
}
