import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";

/** A fresh set of directories for containment tests, removed on dispose. */
export interface Fixture extends AsyncDisposable {
  /** The temporary base directory holding everything below. */
  base: string;
  /** The workspace (read and write); holds `hello.txt` ("hello\nworld\n"). */
  workspace: string;
  /** A read-only root; holds `ro.txt` ("read only\n"). */
  readOnly: string;
  /** A directory outside every root; holds `secret.txt` with {@linkcode SECRET}. */
  outside: string;
  /** A sibling of the workspace whose name starts with the workspace's (`<ws>_evil`). */
  sibling: string;
  /** The default context: the workspace and the read-only root. */
  context: BuiltinContext;
}

/** The content of the outside marker files; must never appear in a result. */
export const SECRET = "TOP-SECRET-MARKER-7f3a";

/**
 * Creates the fixture directories.
 *
 * @returns The fixture; `await using` removes it.
 */
export async function makeFixture(): Promise<Fixture> {
  const base = await Deno.makeTempDir({ prefix: "toolroute_builtins_" });
  const workspace = `${base}/ws`;
  const readOnly = `${base}/ro`;
  const outside = `${base}/outside`;
  const sibling = `${base}/ws_evil`;
  for (const dir of [workspace, readOnly, outside, sibling]) await Deno.mkdir(dir);
  await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\nworld\n");
  await Deno.writeTextFile(`${readOnly}/ro.txt`, "read only\n");
  await Deno.writeTextFile(`${outside}/secret.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${sibling}/secret.txt`, `${SECRET}\n`);
  return {
    base,
    workspace,
    readOnly,
    outside,
    sibling,
    context: { workspace, readOnlyRoots: [readOnly] },
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

/**
 * Exposes the file tools of a context through a real router.
 *
 * @param context The context.
 * @returns The router and the tool set; `await using` closes the router.
 */
export async function fileTools(
  context: BuiltinContext,
): Promise<{ router: ToolRouter; tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["read_file", "write_file", "apply_patch"] });
  return { router, tools, [Symbol.asyncDispose]: () => router.close() };
}

/**
 * Exposes built-in tools of the fixture's context, bash sandboxed (`bwrap`, 20 s command
 * deadline), through a real router: the setup of the attack tests that race a sandboxed command
 * against a file tool.
 *
 * @param fixture The fixture.
 * @param builtins The tools to expose.
 * @returns The router and the tool set; `await using` closes the router.
 */
export async function sandboxedTools(
  fixture: Fixture,
  builtins: string[],
): Promise<{ router: ToolRouter; tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({
    builtins: builtinTools({
      ...fixture.context,
      commandTimeoutMs: 20_000,
      bash: { sandbox: "bwrap" },
    }),
  });
  const tools = await router.expose({ builtins });
  return { router, tools, [Symbol.asyncDispose]: () => router.close() };
}

/**
 * Waits until a background process ends (at most 30 s) and returns its log: the race commands of
 * the attack tests stop on their own clock, and under a gate's load their last round can outlast
 * any fixed wait.
 *
 * @param tools A tool set with bash.
 * @param processId The background process.
 * @returns The process's log text.
 */
export async function logsWhenEnded(tools: ToolSet, processId: string): Promise<string> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const status = await tools.call("bash", { action: "status", processId });
    if (!JSON.parse(status.text).running) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const logs = await tools.call("bash", { action: "logs", processId });
  return JSON.parse(logs.text).text;
}
