import { assertEquals } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";

/**
 * Exposes the search and edit tools (and read_file) of a context through a real router.
 *
 * @param context The context.
 * @returns The tool set; `await using` closes the router.
 */
export async function searchTools(
  context: BuiltinContext,
): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["glob", "grep", "edit", "read_file"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

/**
 * Calls a tool and parses its JSON result; throws with the text when the call failed.
 *
 * @param tools The tool set.
 * @param name The tool.
 * @param args The arguments.
 * @returns The parsed result.
 */
export async function run<T = Record<string, unknown>>(
  tools: ToolSet,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await tools.call(name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.code}: ${result.text}`);
  return JSON.parse(result.text) as T;
}

/**
 * Writes files below a folder, creating their parents.
 *
 * @param dir The folder.
 * @param files Path (relative, with `/`) to text.
 */
export async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/** The sandboxed variant of a context (bash, and with it the file tools, in bubblewrap). */
export function sandboxed(context: BuiltinContext): BuiltinContext {
  return { ...context, bash: { sandbox: "bwrap" } };
}

/**
 * Runs `work` while a second user sends one loopback HTTP request after another (standing for
 * `serve --http`) and a zero-delay timer chain counts the event loop's turns.
 *
 * @param work The work (a search).
 * @returns Its value, the other user's requests answered meanwhile, the turns of the loop, and
 *   the longest stretch (ms) without a turn, up to the work's end.
 */
export async function besideOtherUser<T>(
  work: () => Promise<T>,
): Promise<{ value: T; answered: number; turns: number; longest: number }> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response("served"),
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  try {
    assertEquals(await (await fetch(url)).text(), "served");
    let on = true;
    let answered = 0;
    let turns = 0;
    let longest = 0;
    let last = performance.now();
    const turn = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    };
    const chain = () => {
      if (!on) return;
      turns++;
      turn();
      setTimeout(chain, 0);
    };
    const asker = (async () => {
      while (on) {
        assertEquals(await (await fetch(url)).text(), "served");
        if (on) answered++;
      }
    })();
    setTimeout(chain, 0);
    const value = await work();
    turn();
    on = false;
    await asker;
    return { value, answered, turns, longest };
  } finally {
    await server.shutdown();
  }
}
