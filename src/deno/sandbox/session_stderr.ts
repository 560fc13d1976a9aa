/** Which session-wide limit holds: a cgroup (v2 or v1), or `"none"` (rlimits only). */
export type LimitsKind = "cgroup2" | "cgroup1" | "none";

/**
 * The tail of a session's stderr (for the error of a session that ends), and the limits the
 * resource-limit wrapper reported on its first line.
 */
export class SessionStderr {
  /** The last 4 KiB. */
  text = "";
  /** The limits the wrapper reported, once it did. */
  limitsKind?: LimitsKind;
  /** Resolves when stderr closed (or failed). */
  readonly done: Promise<void>;

  /**
   * Reads `stream` to its end in the background.
   *
   * @param stream The session's stderr.
   */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = this.#read(stream).catch(() => {});
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      let text = this.text + decoder.decode(chunk, { stream: true });
      const limits = /^toolroute-limits: (cgroup2|cgroup1|none)\n/.exec(text);
      if (limits !== null && this.limitsKind === undefined) {
        this.limitsKind = limits[1] as LimitsKind;
        text = text.slice(limits[0].length);
      }
      this.text = text.slice(-4096);
    }
  }
}
