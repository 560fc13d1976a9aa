/** Lines written a moment later, together: see {@linkcode deferredLines}. */
export interface DeferredLines {
  /** Queues one line (without its newline); it is written once the current task has ended. */
  push(line: string): void;
  /** Writes the queued lines now (before the process exits). */
  flush(): void;
}

/**
 * Queues log lines and writes them in one write after the current task: `serve`'s call log is
 * then written after the call's answer, not before it. A line on stderr before the answer woke
 * the client (which reads the server's stderr) on every call, on the call's critical path; a
 * 0 ms timer writes it a few milliseconds later, in order (several calls' lines in one write under
 * load), and `flush` writes what is left.
 *
 * @param write Writes lines joined by newlines (such as `CliIo#err`, which adds the last one).
 */
export function deferredLines(write: (lines: string) => void): DeferredLines {
  let queued: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const lines = queued;
    queued = [];
    write(lines.join("\n"));
  };
  return {
    push(line: string) {
      queued.push(line);
      timer ??= setTimeout(flush, 0);
    },
    flush,
  };
}
