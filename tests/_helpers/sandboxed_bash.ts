/**
 * The set-up of the sandbox tests that run `bash`: a fresh workspace (its real path) and a router
 * with the built-ins over it, `bash` (and any other built-in asked for) exposed; disposing it
 * closes the router and removes the workspace.
 *
 * @module
 */
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

type BuiltinOptions = Omit<Parameters<typeof builtinTools>[0], "workspace">;

/** A router with `bash` over a fresh workspace. */
export interface SandboxedBash extends AsyncDisposable {
  /** The workspace (its real path). */
  readonly ws: string;
  /** The router. */
  readonly router: ToolRouter;
  /** The exposed tools. */
  readonly tools: Awaited<ReturnType<ToolRouter["expose"]>>;
}

/**
 * Makes a workspace and a router with the built-ins over it.
 *
 * @param options The built-ins' options but the workspace (`bash`'s sandbox and limits).
 * @param more The workspace's name prefix, and built-ins exposed besides `bash`.
 * @returns The workspace, router and tools.
 */
export async function sandboxedBash(
  options: BuiltinOptions,
  more: { prefix?: string; builtins?: string[] } = {},
): Promise<SandboxedBash> {
  const ws = await Deno.realPath(
    await Deno.makeTempDir({ prefix: more.prefix ?? "toolroute_bash_" }),
  );
  const router = new ToolRouter({ builtins: builtinTools({ workspace: ws, ...options }) });
  const tools = await router.expose({ builtins: ["bash", ...more.builtins ?? []] });
  return {
    ws,
    router,
    tools,
    async [Symbol.asyncDispose]() {
      await router.close();
      await Deno.remove(ws, { recursive: true });
    },
  };
}
