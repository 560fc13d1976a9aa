/** A slice of a background process's log. */
export interface LogSlice {
  /** Offset of the first character returned, counted from the start of the process's output. */
  offset: number;
  /** Offset to pass next time to continue where this slice ends. */
  nextOffset: number;
  /** The text. */
  text: string;
  /** Characters before `offset` that were asked for but are no longer kept. */
  droppedChars: number;
}

/**
 * The bounded log of a background process (and the tail of `BoundedOutput`): only the last
 * `maxChars` characters are kept, but offsets keep counting from the start of the output, so a
 * reader can continue where it stopped and learns how much it missed.
 */
export class LogBuffer {
  readonly #maxChars: number;
  #text = "";
  #start = 0;

  /**
   * Creates a log.
   */
  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** The most characters kept. */
  get maxChars(): number {
    return this.#maxChars;
  }

  /** Offset just past the last character written. */
  get end(): number {
    return this.#start + this.#text.length;
  }

  /** Offset of the oldest character still kept. */
  get start(): number {
    return this.#start;
  }

  /**
   * Appends text, forgetting the oldest characters beyond the limit.
   */
  push(text: string): void {
    if (text.length >= this.#maxChars) {
      this.#start += this.#text.length + text.length - this.#maxChars;
      this.#text = text.slice(text.length - this.#maxChars);
      return;
    }
    const joined = this.#text + text;
    const over = joined.length - this.#maxChars;
    if (over > 0) {
      this.#start += over;
      this.#text = joined.slice(over);
    } else {
      this.#text = joined;
    }
  }

  /**
   * Reads from an offset.
   *
   * @param offset Where to start; default: the oldest kept character. Past the end gives "".
   * @param limit The most characters returned; default: everything kept.
   * @returns The slice and where to continue.
   */
  read(offset?: number, limit?: number): LogSlice {
    const from = Math.min(Math.max(offset ?? this.#start, this.#start), this.end);
    const droppedChars = offset !== undefined && offset < this.#start ? this.#start - offset : 0;
    const begin = from - this.#start;
    const text = this.#text.slice(begin, limit === undefined ? undefined : begin + limit);
    return { offset: from, nextOffset: from + text.length, text, droppedChars };
  }
}
