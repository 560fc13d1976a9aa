/**
 * Who made a stored result and how it may be read: kept with the result's bytes, checked on every
 * read (a handle alone reads nothing for another user or another tool set).
 */
export interface StoredResultInfo {
  /** The user of the tool set that made it; `null` for a set without a user. */
  readonly userId: string | null;
  /** The tool set (or the host's session) that made it. */
  readonly scope: string;
  /** The tool whose result it is. */
  readonly tool: string;
  /** The result's length in UTF-8 bytes. */
  readonly bytes: number;
  /** Most bytes one `read_result` page returns (the budget of the tool that made it). */
  readonly pageBytes: number;
}

/**
 * Where results cut by a budget are kept whole, behind a handle, until they expire. The router
 * keeps them in its `store` ({@linkcode KeyValueResultStore}); the built-ins of `./deno` keep them
 * in files (`FileResultStore`). Handles are random; the router checks {@linkcode StoredResultInfo}
 * before any read.
 */
export interface ResultStore {
  /**
   * Stores a result's UTF-8 bytes and its info under `handle`.
   *
   * @param handle A new random handle.
   * @param bytes The whole result.
   * @param info Who made it.
   * @param options `expireIn`: milliseconds after which it is gone.
   */
  put(
    handle: string,
    bytes: Uint8Array,
    info: StoredResultInfo,
    options: { expireIn: number },
  ): Promise<void>;
  /** The info of a live stored result, or `undefined`. */
  info(handle: string): Promise<StoredResultInfo | undefined>;
  /** The bytes `[start, end)` of a live stored result (`end` within its length), or `undefined`. */
  read(handle: string, start: number, end: number): Promise<Uint8Array | undefined>;
  /** Removes a stored result; removing one that is gone is not an error. */
  delete(handle: string): Promise<void>;
}
