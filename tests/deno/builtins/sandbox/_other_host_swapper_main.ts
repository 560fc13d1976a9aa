// A second toolroute host process on the same workspace (another `serve`, another agent's
// `toolroute`, a `toolroute call` of the user's): its model starts a sandboxed background process
// that exchanges `src` with a link into `late/.git/hooks` for `seconds` s, counting the exchanges
// in `swaps.txt`. Prints "started" once it runs, and exits when it ended.
import { sandboxTools, swapperScript } from "./_swap_race.ts";

const [workspace, seconds] = Deno.args;
await using mine = await sandboxTools(workspace);
const script = swapperScript({
  folder: "src",
  link: "alt",
  target: "late/.git/hooks",
  seconds: Number(seconds),
});
const started = await mine.tools.call("bash", {
  action: "start",
  command: `python3 -c '${script}'`,
});
if (started.isError) throw new Error(started.text);
const { processId } = JSON.parse(started.text);
await Deno.stdout.write(new TextEncoder().encode("started\n"));
for (;;) {
  const status = await mine.tools.call("bash", { action: "status", processId });
  if (!JSON.parse(status.text).running) break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
