/**
 * A probe, not a test: several processes increment one count in one fresh local Deno KV file
 * through `DenoKvStore.increment` (read, then an atomic commit checking the versionstamp), and it
 * counts the updates lost across processes: a value returned twice, or a final count short of the
 * increments made; and the increments that failed because the store's retries on a locked file
 * ran out. Modes: `precreated` (the file exists before the race), `together` (every
 * process creates it at the same moment), `staggered` (each opens 150 ms after the previous one,
 * so one process's KV is open before the next one's open). Run it beside CPU load, e.g.
 * `yes > /dev/null` four times in the background, to stretch each commit.
 *
 * Run: deno run -A --unstable-kv --config bench/deno.json bench/kv_increment_race_probe.ts
 *      [rounds, default 10] [processes, default 4] [increments per process, default 300]
 *      [mode: precreated | together | staggered, default together]
 *
 * @module
 */
import { type DenoKvLike, DenoKvStore } from "../src/deno/store/deno_kv_store.ts";

const KEY = ["limits", "probe"];
const openKv = (path: string) =>
  (Deno as unknown as { openKv(path: string): Promise<DenoKvLike> }).openKv(path);

if (Deno.args[0] === "--worker") {
  // One racing process: args --worker PATH INCREMENTS DELAY_MS; prints the values it got.
  const [, path, increments, delayMs] = Deno.args;
  await new Promise((resolve) => setTimeout(resolve, Number(delayMs)));
  const store = new DenoKvStore(await openKv(path));
  const got: number[] = [];
  let failed = 0;
  let left = Number(increments);
  // Eight increments in flight at once, so they race within the process too.
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (left-- > 0) {
      try {
        got.push(await store.increment(KEY));
      } catch (error) {
        // The store's retries ran out ("database is locked"): a limit fails such a call closed.
        if (!(error instanceof Error && /database is locked/.test(error.message))) throw error;
        failed++;
      }
    }
  }));
  store.close();
  console.log(`${failed}\n${got.join(" ")}`);
} else {
  const rounds = Number(Deno.args[0] ?? 10);
  const processes = Number(Deno.args[1] ?? 4);
  const increments = Number(Deno.args[2] ?? 300);
  const mode = Deno.args[3] ?? "together";
  let lostRounds = 0;
  let failed = 0;
  for (let round = 0; round < rounds; round++) {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/kv.db`;
    if (mode === "precreated") (await openKv(path)).close();
    const runs = await Promise.all(
      Array.from({ length: processes }, (_, index) =>
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--unstable-kv",
            `--config=${new URL("./deno.json", import.meta.url).pathname}`,
            import.meta.url,
            "--worker",
            path,
            String(increments),
            String(mode === "staggered" ? index * 150 : 0),
          ],
          stderr: "inherit",
        }).output()),
    );
    const values = runs.flatMap((run) => {
      if (run.code !== 0) throw new Error(`a racing process exited with ${run.code}`);
      const [failures, got] = new TextDecoder().decode(run.stdout).split("\n");
      failed += Number(failures);
      return got.trim() === "" ? [] : got.trim().split(" ").map(Number);
    });
    const kv = await openKv(path);
    const stored = ((await kv.get(KEY)).value ?? { json: "0" }) as { json: string };
    kv.close();
    await Deno.remove(dir, { recursive: true });
    const distinct = new Set(values).size;
    if (distinct !== values.length || Number(stored.json) !== values.length) {
      lostRounds++;
      console.log(
        `round ${round}: ${values.length} increments, ${distinct} distinct values, count ${stored.json}`,
      );
    }
  }
  console.log(
    `${mode}, ${processes} processes × ${increments} increments: ${lostRounds} of ${rounds} rounds lost an update; ${failed} increments failed ("database is locked")`,
  );
}
