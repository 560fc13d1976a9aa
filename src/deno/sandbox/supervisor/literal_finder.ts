/**
 * Finds a byte sequence in many files: it looks for the sequence's rarest byte natively
 * (`Uint8Array.prototype.indexOf`), then compares the rest. Which byte is rarest is learned from
 * the first bytes of the first files searched (a capital `X` is rare in prose, common in C
 * headers); before any sample, a rough frequency of bytes in source text decides.
 *
 * Self-contained (no outside names): the sandbox session's supervisor runs its source text too.
 */
export class LiteralFinder {
  readonly #needle: Uint8Array;
  readonly #counts = new Uint32Array(256);
  #sampled = 0;
  #pick: number;

  /**
   * @param needle The sequence, non-empty.
   */
  constructor(needle: Uint8Array) {
    if (needle.length === 0) throw new RangeError("Cannot search for an empty byte sequence");
    this.#needle = needle;
    let pick = 0;
    for (let i = 1; i < needle.length; i++) {
      if (LiteralFinder.#rank(needle[i]) < LiteralFinder.#rank(needle[pick])) pick = i;
    }
    this.#pick = pick;
  }

  /**
   * Whether bytes contain the sequence.
   *
   * @param data The bytes searched.
   * @returns `true` when found.
   */
  contains(data: Uint8Array): boolean {
    const needle = this.#needle;
    // The first 64 KiB searched (at most 4 KiB of a file) are the sample.
    if (this.#sampled < 64 * 1024) this.#learn(data);
    const pick = this.#pick;
    const rare = needle[pick];
    const last = data.length - needle.length + pick;
    for (
      let at = data.indexOf(rare, pick);
      at >= 0 && at <= last;
      at = data.indexOf(rare, at + 1)
    ) {
      const start = at - pick;
      let i = 0;
      while (i < needle.length && data[start + i] === needle[i]) i++;
      if (i === needle.length) return true;
    }
    return false;
  }

  /**
   * Whether bytes contain the sequence, looked for a window at a time with `pause` between
   * windows: the search is linear in the bytes times the sequence at worst (a text built so that
   * every place of the rarest byte nearly matches), so a window holds about 8 Mi such steps.
   *
   * @param data The bytes searched.
   * @param pause Called between windows; returns (or resolves to) `true` to give up.
   * @returns `true` when found; `false` when not, or given up.
   */
  async containsPaused(
    data: Uint8Array,
    pause: () => boolean | Promise<boolean>,
  ): Promise<boolean> {
    const length = this.#needle.length;
    const window = Math.max(16 * 1024, Math.min(1024 * 1024, Math.floor((8 << 20) / length)));
    for (let start = 0; start < data.length; start += window) {
      if (start > 0 && await pause()) return false;
      // Each window reaches into the next by the sequence's length less one.
      if (this.contains(data.subarray(start, start + window + length - 1))) return true;
      if (start + window + length - 1 >= data.length) return false;
    }
    return false;
  }

  #learn(data: Uint8Array): void {
    const counts = this.#counts;
    const count = Math.min(data.length, 4096);
    for (let i = 0; i < count; i++) counts[data[i]]++;
    this.#sampled += count;
    const needle = this.#needle;
    let pick = this.#pick;
    for (let i = 0; i < needle.length; i++) {
      const [a, b] = [counts[needle[i]], counts[needle[pick]]];
      if (
        a < b || (a === b && LiteralFinder.#rank(needle[i]) < LiteralFinder.#rank(needle[pick]))
      ) {
        pick = i;
      }
    }
    this.#pick = pick;
  }

  /** How common a byte is in source text, roughly: lower is rarer. */
  static #rank(byte: number): number {
    // Letters from the most to the least common in English and code.
    const letters = "etaoinsrhldcumfpgwybvkxjqz";
    if (byte === 0x20 || byte === 0x0a || byte === 0x5f) return 100; // space, newline, _
    if (byte >= 0x61 && byte <= 0x7a) return 99 - letters.indexOf(String.fromCharCode(byte));
    if (byte >= 0x41 && byte <= 0x5a) return 60 - letters.indexOf(String.fromCharCode(byte + 32));
    if (byte >= 0x30 && byte <= 0x39) return 20; // digits
    if (byte < 0x80 && /[.,;:()="'{}/*-]/.test(String.fromCharCode(byte))) return 50;
    return 10;
  }
}
