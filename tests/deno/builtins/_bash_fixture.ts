import type { CallSettings, ToolCallResult } from "../../../src/core/tool_call_types.ts";
import { callTool } from "../../../src/core/tool_call.ts";
import type { BuiltinContext, RoutedTool } from "../../../src/core/tool_source.ts";
import { createBashTool } from "../../../src/deno/builtins/bash/bash.ts";
import { resolveBuiltinContext } from "../../../src/deno/builtins/builtin_context.ts";
import { ProcessTable } from "../../../src/deno/builtins/bash/process_table.ts";
import { SandboxSessions } from "../../../src/deno/builtins/sandbox/sandbox_sessions.ts";

/** A fresh workspace, a read-only root, an outside directory with a marker, a prefix sibling. */
export interface BashFixture extends AsyncDisposable {
  root: string;
  workspace: string;
  readOnly: string;
  outside: string;
  marker: string;
  sibling: string;
}

/** Creates the directories of one test; dispose removes them. */
export async function bashFixture(): Promise<BashFixture> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_bash_" }));
  const workspace = `${root}/ws`;
  const readOnly = `${root}/ro`;
  const outside = `${root}/outside`;
  const sibling = `${root}/ws_evil`;
  for (const dir of [workspace, readOnly, outside, sibling]) await Deno.mkdir(dir);
  const marker = `${outside}/marker.txt`;
  await Deno.writeTextFile(marker, "OUTSIDE-MARKER\n");
  await Deno.writeTextFile(`${readOnly}/notes.txt`, "read-only notes\n");
  return {
    root,
    workspace,
    readOnly,
    outside,
    marker,
    sibling,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** A bash tool and its process table; dispose closes the table. */
export interface BashUnderTest extends AsyncDisposable {
  tool: RoutedTool;
  processes: ProcessTable;
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult>;
  json(args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Creates the bash tool for a context, called through the router's catch boundary; sandboxed, with
 * its own sandbox sessions, as `builtinTools` gives it (dispose closes them).
 */
export function bashUnderTest(
  context: BuiltinContext,
  options: { settings?: CallSettings } = {},
): BashUnderTest {
  const ctx = resolveBuiltinContext(context);
  const processes = new ProcessTable(ctx);
  const sessions = new SandboxSessions();
  const tool = createBashTool(ctx, processes, { sessions });
  const call = (args: Record<string, unknown>, signal?: AbortSignal) =>
    callTool(
      { tool, name: "bash", args, options: { signal } },
      options.settings ?? {},
    );
  return {
    tool,
    processes,
    call,
    async json(args) {
      const result = await call(args);
      if (result.isError) throw new Error(`bash failed (${result.code}): ${result.text}`);
      return JSON.parse(result.text);
    },
    async [Symbol.asyncDispose]() {
      await processes.close();
      await sessions.close();
    },
  };
}

/** A `sleep` duration unique to one test, so that leftovers can be found by command line. */
export function uniqueSleep(): string {
  return `30.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

/** The pids of processes whose command line contains `text` (pgrep never lists itself). */
export async function processesMatching(text: string): Promise<number[]> {
  const { stdout } = await new Deno.Command("pgrep", { args: ["-f", text], stdin: "null" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((l) => l !== "").map(Number);
}

/** Waits until no process matches `text`, up to `ms`; returns what still matches. */
export async function leftovers(text: string, ms = 3000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let found = await processesMatching(text);
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = await processesMatching(text);
  }
  return found;
}
