/**
 * Probe, kept out of the suite (not named `*_test.ts`): run with
 * `deno test --no-prompt -A tests/_attacks/host_search_fifo_swap_attack.ts`.
 *
 * Host searches (bash off or unsandboxed) list a folder, then open each regular file with
 * `Deno.openSync` (`search/host_search_access.ts`) and read a `.gitignore` with
 * `readTextFileSync` after an lstat (`search/host_tree.ts`). A process that swaps a listed file
 * for a FIFO between the listing and the open makes the open block the whole server until some
 * process opens the FIFO for writing. Here a racer swaps files for FIFOs in a loop while a server
 * greps; the server must finish its loop.
 *
 * @module
 */
import { assert } from "@std/assert";

Deno.test("a file swapped for a FIFO between a host search's listing and its open does not block the server", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_fifo_swap_" }));
  try {
    for (let i = 0; i < 50; i++) await Deno.writeTextFile(`${ws}/f${i}.txt`, "needle\n");
    await Deno.writeTextFile(`${ws}/.gitignore`, "*.log\n");
    const racer = new Deno.Command("bash", {
      args: [
        "-c",
        `cd ${ws}; end=$((SECONDS+4)); n=0; while [ $SECONDS -lt $end ]; do for i in 1 2 3 4 5; do ` +
        `mkfifo p$i; mv -f p$i f$i.txt; mkfifo g; mv -f g .gitignore; echo needle > t$i; mv -f t$i f$i.txt; ` +
        `echo '*.log' > h; mv -f h .gitignore; n=$((n+1)); done; done; echo SWAPS=$n`,
      ],
      stdout: "piped",
    }).spawn();
    const server = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_host_grep_loop.ts", import.meta.url).pathname, ws, "3000"],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const killer = setTimeout(() => server.kill("SIGKILL"), 15_000);
    const out = new TextDecoder().decode((await server.output()).stdout);
    clearTimeout(killer);
    const swaps = new TextDecoder().decode((await racer.output()).stdout);
    assert(/SWAPS=[1-9]/.test(swaps), swaps);
    assert(
      /CALLS=[1-9]/.test(out),
      `the server did not finish its loop (blocked on a FIFO?): ${out}`,
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
