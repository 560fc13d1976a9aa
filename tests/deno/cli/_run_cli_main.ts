/**
 * Test helper: runs several `toolroute` command lines one after another in this process, in the
 * current directory (the caller picks it, so the test process never changes its own), and prints
 * each one's exit code and output as one JSON array on stdout.
 *
 * Argument: a JSON array of argument lists.
 *
 * @module
 */
import { runCli } from "../../../src/deno/cli/mod.ts";

const results: { code: number; out: string; err: string }[] = [];
for (const args of JSON.parse(Deno.args[0]) as string[][]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  results.push({ code, out: out.join("\n"), err: err.join("\n") });
}
console.log(JSON.stringify(results));
