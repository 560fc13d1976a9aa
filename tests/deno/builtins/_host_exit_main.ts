// A host process for process_table_test.ts: starts one background process through the bash
// tool (or, for "exit-during-exec", runs one command with exec), prints "started", then waits
// until stdin closes and exits normally, or waits to be killed ("wait").
import { createBashTool } from "../../../src/deno/builtins/bash/bash.ts";
import { resolveBuiltinContext } from "../../../src/deno/builtins/builtin_context.ts";
import { ProcessTable } from "../../../src/deno/builtins/bash/process_table.ts";
import { SandboxSessions } from "../../../src/deno/builtins/sandbox/sandbox_sessions.ts";

const [workspace, sandbox, command, mode] = Deno.args;
const ctx = resolveBuiltinContext({ workspace, bash: { sandbox: sandbox as "bwrap" | "none" } });
const sessions = new SandboxSessions();
const tool = createBashTool(ctx, new ProcessTable(ctx), { sessions });
const signal = new AbortController().signal;
if (mode === "exit-during-exec") {
  // Not awaited: the host exits while the command runs (no watchdog: only `unload` kills it).
  (tool.execute({ action: "exec", command }, { signal }) as Promise<unknown>).catch(() => {});
} else {
  await tool.execute({ action: "start", command }, { signal });
}
await Deno.stdout.write(new TextEncoder().encode("started\n"));
if (mode !== "wait") {
  await Deno.stdin.readable.pipeTo(new WritableStream());
  Deno.exit(0);
}
setInterval(() => {}, 1000);
