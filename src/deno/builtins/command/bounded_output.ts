import { LogBuffer } from "./log_buffer.ts";

/**
 * Collects streamed text while keeping memory bounded: the first half of the budget is kept as
 * the head, the last characters as the tail, and everything between is only counted.
 *
 * The result matches `truncateMiddle` of the core: head and tail with
 * `[... N characters truncated ...]` between.
 */
export class BoundedOutput {
  readonly #headMax: number;
  #head = "";
  // The tail is a log window: the last characters, and how many fell out of it.
  readonly #tail: LogBuffer;

  /**
   * Creates a collector.
   *
   * @param maxChars The most characters kept (the marker is extra).
   */
  constructor(maxChars: number) {
    this.#headMax = Math.ceil(maxChars / 2);
    this.#tail = new LogBuffer(maxChars - this.#headMax);
  }

  /** How many characters were seen in total. */
  get totalChars(): number {
    return this.#head.length + this.#tail.end;
  }

  /**
   * Adds a piece of text.
   *
   * @param text The next piece.
   */
  push(text: string): void {
    let rest = text;
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length > 0) this.#tail.push(rest);
  }

  /**
   * The text: complete, or head and tail with the truncation marker between.
   *
   * @param budget The most characters to keep, at most the collector's limit; default: the limit.
   * @returns The text, cut as `truncateMiddle` would cut the whole output to `budget`.
   */
  text(budget: number = this.#headMax + this.#tail.maxChars): string {
    const total = this.totalChars;
    const tailText = this.#tail.read().text;
    if (total <= budget) return this.#head + tailText;
    const head = Math.ceil(budget / 2);
    const tail = budget - head;
    const end = this.#tail.start === 0 ? this.#head + tailText : tailText;
    return `${this.#head.slice(0, head)}\n[... ${total - budget} characters truncated ...]\n${
      tail > 0 ? end.slice(-tail) : ""
    }`;
  }
}

/**
 * Splits one character budget between stdout and stderr: a stream shorter than half the budget
 * keeps all of it and leaves the rest to the other.
 *
 * @param budget The most characters of the whole output.
 * @param lengths The length of stdout (`stdoutChars`) and of stderr (`stderrChars`).
 * @returns The budget of each stream.
 */
export function splitBudget(
  budget: number,
  lengths: { stdoutChars: number; stderrChars: number },
): { stdout: number; stderr: number } {
  const { stdoutChars, stderrChars } = lengths;
  if (stdoutChars + stderrChars <= budget) return { stdout: stdoutChars, stderr: stderrChars };
  const half = Math.floor(budget / 2);
  if (stderrChars <= half) return { stdout: budget - stderrChars, stderr: stderrChars };
  if (stdoutChars <= half) return { stdout: stdoutChars, stderr: budget - stdoutChars };
  return { stdout: budget - half, stderr: half };
}

/**
 * Reads a byte stream to its end into a collector, decoding UTF-8 as it goes.
 *
 * @param stream The stream (a child's stdout or stderr).
 * @param output Where the text goes.
 * @param options `stop` cancels the reading (for pipes an escaped process keeps open).
 * @returns Resolves when the stream ends or is cancelled.
 */
export async function drainInto(
  stream: ReadableStream<Uint8Array>,
  output: { push(text: string): void },
  options: { stop?: AbortSignal } = {},
): Promise<void> {
  const { stop } = options;
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  stop?.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text.length > 0) output.push(text);
    }
  } finally {
    stop?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
  const rest = decoder.decode();
  if (rest.length > 0) output.push(rest);
}
