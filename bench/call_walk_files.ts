/**
 * How many of toolroute's own source files a sandboxed built-in call runs code in on the host
 * (issue 27: "a sandboxed call walks at most 15 host files"). Runs `_call_walk_main.ts` twice
 * under V8 coverage, once with no measured calls and once with `calls` of them (after the same
 * three warm-up calls and session start), and lists each file of `src/` with a function run at
 * least once per measured call more in the second run. The supervisor inside the sandbox is a
 * process of its own and is not counted.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/call_walk_files.ts [tool=read_file] [calls=40]`
 * (tool: `read_file` or `write_file`; needs bubblewrap).
 *
 * @module
 */

import { fromFileUrl, join, relative } from "@std/path";

const tool = Deno.args[0] ?? "read_file";
const calls = Number(Deno.args[1] ?? 40);
const root = fromFileUrl(new URL("../", import.meta.url));
const main = fromFileUrl(new URL("./_call_walk_main.ts", import.meta.url));

interface V8Script {
  url: string;
  functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[];
}

/** Each function of `src/` (file, name, offset) and how often it ran, in one run of `n` calls. */
async function counts(n: number): Promise<Map<string, number>> {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_call_walk_" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        join(root, "deno.json"),
        "-A",
        `--coverage=${dir}`,
        main,
        tool,
        `${n}`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!run.success) throw new Error(new TextDecoder().decode(run.stderr));
    const found = new Map<string, number>();
    for await (const entry of Deno.readDir(dir)) {
      const script: V8Script = JSON.parse(await Deno.readTextFile(join(dir, entry.name)));
      if (!script.url.startsWith("file://")) continue;
      const file = relative(root, fromFileUrl(script.url));
      if (!file.startsWith("src/")) continue;
      for (const fn of script.functions) {
        const key = `${file}\0${fn.functionName}\0${fn.ranges[0].startOffset}`;
        found.set(key, (found.get(key) ?? 0) + fn.ranges[0].count);
      }
    }
    return found;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const [before, after] = [await counts(0), await counts(calls)];
const files = new Set<string>();
for (const [key, count] of after) {
  if (count - (before.get(key) ?? 0) >= calls) files.add(key.split("\0")[0]);
}
for (const file of [...files].sort()) console.log(file);
console.log(`${files.size} host files on the way of a sandboxed ${tool} (${calls} calls)`);
