import { assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import type { BuiltinSource } from "@toolroute/toolroute/unstable-source";
import { builtinTools } from "@toolroute/toolroute/deno";
import { contractTools, runSourceContract } from "../../../_helpers/source_contract.ts";
import { makeFixture } from "../_fixture.ts";
import { writeTree } from "./_search_fixture.ts";

/** A tree of `folders` folders of `files` files (1,200 of 5 take well over 50 ms to search). */
async function bigTree(dir: string, folders = 1200, files = 5): Promise<void> {
  const line = "alpha beta gamma delta epsilon zeta eta theta iota kappa\n".repeat(30);
  for (let d = 0; d < folders; d++) {
    const folder = `${dir}/big/d${d % 30}/s${d}`;
    await Deno.mkdir(folder, { recursive: true });
    for (let i = 0; i < files; i++) Deno.writeTextFileSync(`${folder}/f${i}.txt`, line);
  }
}

/**
 * The real built-in source, watching each call: `stopped()` resolves once a call whose signal
 * aborted has ended with an error (the search stopped instead of finishing).
 */
function watched(
  source: BuiltinSource,
): BuiltinSource & { stopped(): Promise<void>; count: number } {
  let stop!: () => void;
  let stopped = new Promise<void>((resolve) => stop = resolve);
  const watcher = {
    names: source.names,
    count: 0,
    stopped: () => stopped,
    resolve(names: readonly string[], context?: Parameters<BuiltinSource["resolve"]>[1]) {
      const found = source.resolve(names, context);
      return {
        missing: found.missing,
        tools: found.tools.map((tool) => ({
          ...tool,
          execute: async (args: Record<string, unknown>, ctx: { signal: AbortSignal }) => {
            try {
              return await tool.execute(args, ctx);
            } catch (error) {
              if (ctx.signal.aborted) {
                watcher.count++;
                stop();
                stopped = Promise.resolve();
              }
              throw error;
            }
          },
        })),
      };
    },
    close: () => source.close?.() ?? Promise.resolve(),
  };
  return watcher;
}

Deno.test("glob, edit and grep meet the source contract", async (t) => {
  const f = await makeFixture();
  await writeTree(f.workspace, { "notes/hi.txt": "hi\n" });
  await bigTree(f.workspace);
  const source = watched(builtinTools(f.context));
  const router = new ToolRouter({ builtins: source });
  await runSourceContract(t, {
    toolSet: await router.expose({ builtins: ["glob", "edit", "grep"] }),
    names: { echo: "glob", fail: "edit", wait: "grep" },
    source: "builtin",
    tools: { ...contractTools(), sawAbort: () => source.stopped() },
    calls: {
      echo: {
        args: '{"pattern":"notes/*.txt"}',
        text: '{"paths":["notes/hi.txt"],"truncated":false}',
      },
      badArgs: { args: '{"pattern": 5}', mentions: /pattern/ },
      fail: {
        args: { path: "notes/hi.txt", oldString: "absent", newString: "x" },
        message: /found 0 occurrences/,
      },
      wait: { args: '{"pattern":"never-there-[0-9]{9}","maxResults":1}' },
    },
    close: async () => {
      await router.close();
      await Deno.remove(f.base, { recursive: true });
    },
  });
  assertEquals(source.count >= 1, true, "a search saw its signal abort and stopped");
});

Deno.test("glob and grep stop at the context's commandTimeoutMs with a timeout that says what to do", async () => {
  await using f = await makeFixture();
  await bigTree(f.workspace, 600, 1);
  await using router = new ToolRouter({
    builtins: builtinTools({ ...f.context, commandTimeoutMs: 1 }),
  });
  const tools = await router.expose({ builtins: ["glob", "grep"] });
  const calls = [["grep", { pattern: "nothing-here" }], ["glob", { pattern: "**/*.md" }]] as const;
  for (const [name, args] of calls) {
    const result = await tools.call(name, args);
    assertEquals([result.isError, result.code], [true, "timeout"], name);
    assertStringIncludes(result.text, "took longer than 1 ms and was stopped: narrow it");
  }
});
