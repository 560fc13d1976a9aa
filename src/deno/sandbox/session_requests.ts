import type { ToolError } from "../../core/tool_error.ts";
import type { SessionFrame } from "./session_frames.ts";

/** How one request waits. */
export interface RequestOptions {
  /**
   * The deadline: then the whole session is ended (a hung supervisor) and this is the error.
   * `Infinity` for none.
   */
  readonly timeoutMs: number;
  /** The error at the deadline. */
  readonly onTimeout: () => ToolError;
  /** Receives `stream` frames of an `exec`. */
  readonly onStream?: (stream: 1 | 2, bytes: Uint8Array) => void;
  /** Learns the request's id (to `cancel` it). */
  readonly onId?: (id: number) => void;
}

/** A request waiting for its answer. */
export interface PendingRequest {
  resolve(frame: SessionFrame): void;
  reject(error: unknown): void;
  onStream?: (stream: 1 | 2, bytes: Uint8Array) => void;
}

/**
 * The requests a session sent and has no answer to yet, by id (0 is the supervisor's `ready`),
 * and the routing of each answer frame to its request. A frame that answers nothing or is not
 * an answer throws a `RangeError`: the supervisor broke the protocol, the session must end.
 */
export class SessionRequests {
  readonly #pending = new Map<number, PendingRequest>();

  /** How many wait. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Registers a request.
   *
   * @param id Its id.
   * @param pending How it is answered.
   */
  add(id: number, pending: PendingRequest): void {
    this.#pending.set(id, pending);
  }

  /**
   * Forgets a request (answered, failed or timed out).
   *
   * @param id Its id.
   */
  delete(id: number): void {
    this.#pending.delete(id);
  }

  /**
   * Fails every waiting request and forgets them.
   *
   * @param errorFor The error for a request's id.
   */
  rejectAll(errorFor: (id: number) => unknown): void {
    const all = [...this.#pending];
    this.#pending.clear();
    for (const [id, pending] of all) pending.reject(errorFor(id));
  }

  /**
   * Hands an answer frame to its request: `ready` (id 0), a `stream` chunk of an `exec`, or the
   * final `ok`, `error` or `exit`.
   *
   * @param frame The frame, as received.
   */
  dispatch(frame: SessionFrame): void {
    const { id } = frame.header;
    const pending = typeof id === "number" ? this.#pending.get(id) : undefined;
    if (pending === undefined) throw new RangeError(`an answer to no request (id ${id})`);
    if (id === 0) {
      if (typeof frame.header.ready !== "object") throw new RangeError("no ready message");
      this.#pending.delete(0);
      pending.resolve(frame);
    } else if ("stream" in frame.header) {
      const stream = frame.header.stream;
      if ((stream !== 1 && stream !== 2) || pending.onStream === undefined) {
        throw new RangeError("an output stream where none is expected");
      }
      pending.onStream(stream, frame.body);
    } else if ("ok" in frame.header || "error" in frame.header || "exit" in frame.header) {
      this.#pending.delete(id as number);
      pending.resolve(frame);
    } else {
      throw new RangeError("an answer without ok, error or exit");
    }
  }
}
