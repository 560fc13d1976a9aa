/**
 * Outside attack, left open: one folder of very many entries (what a model's command makes with
 * `seq 200000 | xargs touch`) is listed, sorted and gone through by an in-process `glob` or `grep`
 * as one step on the host's event loop (`HostTree.list`: `Deno.readDirSync` and a sort; the walk
 * ticks only between folders). 200,000 names held `serve`'s loop about 1.3 s for one glob (other
 * users, timers and the call's own deadline waited; a 300 ms deadline ended as a success after
 * 1.3 s), and the hold grows with the folder. The sandboxed search lists in the supervisor but the
 * host still sorts the folder in one step (a 194 ms gap for 200,000).
 *
 * The fix, not small: let `TreeView.list` answer a promise and read a folder whose size says it is
 * large with `Deno.readDir` (off the loop, as `runStepsYielding` does), sort and go through its
 * entries in slices with the budget's tick between them (and check the deadline there).
 * Ignored until then; run it with `ignore` removed to see it fail.
 */
import { assert, assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { searchTools } from "./_search_fixture.ts";

Deno.test({
  name: "glob over one folder of 100,000 files does not hold the host's event loop in one step",
  ignore: true,
  async fn() {
    await using f = await makeFixture();
    const dir = `${f.workspace}/flat`;
    await Deno.mkdir(dir);
    for (let i = 0; i < 100_000; i++) Deno.writeFileSync(`${dir}/f${i}`, new Uint8Array());
    Deno.writeFileSync(`${dir}/zz_last`, new Uint8Array());
    await using s = await searchTools({ ...f.context, commandTimeoutMs: 600_000 });
    const gaps: number[] = [];
    let last = performance.now();
    let on = true;
    const chain = () => {
      if (!on) return;
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      setTimeout(chain, 0);
    };
    setTimeout(chain, 0);
    const started = performance.now();
    const result = await s.tools.call("glob", { pattern: "**/zz_*" });
    const took = performance.now() - started;
    on = false;
    gaps.push(performance.now() - last); // the stretch up to the call's end
    // The attack ran: every name of the folder was listed and matched, the last one found.
    assert(!result.isError, result.text);
    assertEquals(JSON.parse(result.text).paths, ["flat/zz_last"]);
    // Contained: no stretch without a turn of the loop took half the call.
    const longest = Math.max(0, ...gaps);
    assert(
      longest * 2 < took,
      `the loop was held ${longest.toFixed(0)} ms in one stretch of a ${took.toFixed(0)} ms call`,
    );
  },
});
