// A second toolroute host process on the same workspace (another `serve`, another agent's
// `toolroute`, a `toolroute call` of the user's): its model starts a sandboxed background process
// that exchanges `src` with a link into `late/.git/hooks` for `seconds` s, counting the exchanges
// in `swaps.txt`. Prints "started" once it runs, and exits when it ended.
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const [workspace, seconds] = Deno.args;
const SWAPPER = [
  "import ctypes, time",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "n = 0",
  `end = time.time() + ${Number(seconds)}`,
  "while time.time() < end:",
  '    if libc.renameat2(-100, b"src", -100, b"alt", 2) == 0: n += 1',
  'open("swaps.txt", "w").write(str(n))',
].join("\n");
const router = new ToolRouter({
  builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
});
try {
  const tools = await router.expose({ builtins: ["bash"] });
  const started = await tools.call("bash", {
    action: "start",
    command: `ln -s late/.git/hooks alt && python3 -c '${SWAPPER}'`,
  });
  if (started.isError) throw new Error(started.text);
  const { processId } = JSON.parse(started.text);
  await Deno.stdout.write(new TextEncoder().encode("started\n"));
  for (;;) {
    const status = await tools.call("bash", { action: "status", processId });
    if (!JSON.parse(status.text).running) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
} finally {
  await router.close();
}
