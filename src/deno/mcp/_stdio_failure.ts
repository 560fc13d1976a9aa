/** What a stdio server's start saw of its `PATH` (see `DenoStdioClientTransport`). */
export interface StdioPathSeen {
  /** The server's `command` as configured. */
  readonly command: string;
  /** The child's `PATH`, `undefined` when the host's could not be read and was not configured. */
  readonly path?: string;
  /** `PATH` and `HOME` when the child did not get them (the host may not read them). */
  readonly unread: readonly string[];
}

/**
 * Why a program was not found and what to do: the `PATH` the child saw, and the flag that passes
 * the host's when the host may not read it (an `npx` server without `PATH` and `HOME` cannot
 * find what it installs).
 *
 * @param seen The command and the `PATH` it was looked for on.
 */
export function stdioNotFound(seen: StdioPathSeen): string {
  const command = `"${seen.command}"`;
  if (seen.unread.length > 0) {
    return `${command} ran without the host's ${seen.unread.join(" and ")}` +
      `${seen.path === undefined ? "" : ` (PATH=${seen.path})`}, which this process may not ` +
      `read: run Deno with --allow-env=${seen.unread.join(",")} (\`toolroute flags\` prints ` +
      `every flag the config needs), or set them under "env" in the server's config`;
  }
  return `${command} looked on PATH=${seen.path}; install the program, give its full path as ` +
    `"command", or set "PATH" under "env" in the server's config`;
}

/**
 * The error of a stdio server that could not start: not found (with {@linkcode stdioNotFound}),
 * its sandbox not permitted (the flags to grant), or what the start threw.
 *
 * @param error What the start threw.
 * @param seen The command and the `PATH` it was looked for on.
 * @returns The error, with `error` as its cause.
 */
export function stdioStartError(error: unknown, seen: StdioPathSeen): Error {
  const denied = error instanceof Deno.errors.NotCapable && /"(bash|bwrap)"/.test(error.message);
  const reason = error instanceof Deno.errors.NotFound
    ? `the command was not found: ${stdioNotFound(seen)}`
    : denied
    ? `its sandbox could not start (${error.message}): it runs bubblewrap through bash, so ` +
      `grant --allow-run=bash,bwrap, or set "sandbox": "none" in its config to run it ` +
      `unconfined`
    : error instanceof Error
    ? error.message
    : String(error);
  return new Error(`Cannot start stdio server "${seen.command}": ${reason}`, { cause: error });
}

/**
 * Why a stdio server went away by itself: its exit code or signal, the sandbox limit that killed
 * it, the end of its stderr and, when a program it starts was not found, what to do.
 *
 * @param status How it exited, and the limit that killed it (`limitReason`), if any.
 * @param seen Its stderr (ANSI codes removed) and the `PATH` it was started with.
 */
export function stdioExitReason(
  status: { readonly code: number; readonly signal: string | null; readonly limit?: string },
  seen: StdioPathSeen & { readonly stderr: string },
): string {
  const tail = seen.stderr.replace(/\s+/g, " ").trim().slice(-300);
  const how = (status.signal ? `signal ${status.signal}` : `code ${status.code}`) +
    (status.limit === undefined ? "" : `, ${status.limit}`);
  // 127: a shell (or `npx`'s) could not find a program it was to run.
  const hint = status.code === 127 && /not found|No such file/i.test(tail)
    ? `. A program it starts was not found: ${stdioNotFound(seen)}`
    : "";
  return `The stdio server exited (${how})${tail ? `: ${tail}` : ""}${hint}`;
}
