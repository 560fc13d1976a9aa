/**
 * Runs a test runner's child process (a `deno task` part, a `deno test` run), either writing to
 * this process's output as it goes or collecting its output to write later: children that run at
 * the same time would interleave their lines, so all but one are collected.
 *
 * @module
 */

import { concat } from "@std/bytes";

/** How the child ended, and what it wrote when collected. */
export interface ChildResult {
  /** The exit code. */
  code: number;
  /** Its stdout and stderr in the order they came, when collected. */
  output?: Uint8Array;
}

/**
 * Runs `deno` with `args`.
 *
 * @param args The arguments after `deno`.
 * @param options `collect` to collect the output instead of writing it; `cwd` and `env` as for
 *   `Deno.Command`.
 * @returns The result once the child has ended.
 */
export async function runChild(
  args: string[],
  options: { collect?: boolean; cwd?: string; env?: Record<string, string> } = {},
): Promise<ChildResult> {
  const collect = options.collect === true;
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: collect ? "null" : "inherit",
    stdout: collect ? "piped" : "inherit",
    stderr: collect ? "piped" : "inherit",
  }).spawn();
  if (!collect) return { code: (await child.status).code };
  // Both streams into one, in the order they came: a test's own output stays beside its result.
  const chunks: Uint8Array[] = [];
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) chunks.push(chunk);
  };
  const [{ code }] = await Promise.all([child.status, drain(child.stdout), drain(child.stderr)]);
  return { code, output: concat(chunks) };
}
