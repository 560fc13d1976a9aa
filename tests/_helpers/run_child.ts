/**
 * Runs a test runner's child process (a `deno task` part, a `deno test` run), either writing to
 * this process's output as it goes or collecting its output to write later: children that run at
 * the same time would interleave their lines, so all but one are collected. Either way the output
 * is kept, for the digest of failed tests the runner writes last (`failure_digest.ts`).
 *
 * @module
 */

import { concat } from "@std/bytes";

/** How the child ended, and what it wrote. */
export interface ChildResult {
  /** The exit code. */
  code: number;
  /** Its stdout and stderr in the order they came. */
  output: Uint8Array;
  /** Whether {@linkcode ChildResult.output} was written already, as it came. */
  written: boolean;
}

/** Writes every byte of `bytes` to `to` (one `write` may take fewer). */
export async function writeAll(
  to: { write(bytes: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await to.write(bytes.subarray(at));
}

/**
 * Runs `deno` with `args`.
 *
 * @param args The arguments after `deno`.
 * @param options `collect` to collect the output instead of writing it as it comes; `cwd` and
 *   `env` as for `Deno.Command`.
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
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Both streams into one, in the order they came: a test's own output stays beside its result.
  const chunks: Uint8Array[] = [];
  const drain = async (stream: ReadableStream<Uint8Array>, to: typeof Deno.stdout) => {
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (!collect) await writeAll(to, chunk);
    }
  };
  const [{ code }] = await Promise.all([
    child.status,
    drain(child.stdout, Deno.stdout),
    drain(child.stderr, Deno.stderr),
  ]);
  return { code, output: concat(chunks), written: !collect };
}
