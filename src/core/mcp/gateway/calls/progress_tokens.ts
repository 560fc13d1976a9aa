import type { ToolProgress } from "../../../tool_source.ts";
import { ignoreProgress } from "../../mcp_call.ts";

/** A progress listener; with one, a request carries a progress token. */
export type ProgressListener = (progress: ToolProgress) => void;

/** One call, as the progress policy sees it. */
export interface ProgressCall {
  /** The caller's listener, if any. */
  readonly onProgress: ProgressListener | undefined;
  /** Whether progress may extend the call's deadline (no `timeoutMs` of its own). */
  readonly extendable: boolean;
}

/** Most tool names one connection remembers in each set (a bound against endless new names). */
const MAX_PROBED = 4096;

/**
 * Decides, per call on one connection, whether the request carries a progress token, and so
 * whether the server's progress can restart its deadline. A token costs the server work on every
 * call (the SDK's server parses `_meta` three times), so a call carries one only when it can be of
 * use:
 *
 * - someone listens to the call's progress (the host's `onProgress`, or a `serve` client that sent
 *   its own token): always;
 * - otherwise, when the call's deadline may be extended by progress (no `timeoutMs` of its own):
 *   on the first call of each tool on the connection (a probe), on every call of a tool that has
 *   reported progress on the connection, and on every call with `progressTokens: "always"`.
 *
 * A call without a token cannot be extended: it keeps the plain `requestTimeoutMs` deadline.
 */
export class ProgressTokens {
  #always: boolean;
  /**
   * Tools called with a token at least once (the probe is spent): the first one's name alone, a
   * set from the second on (most connections call one tool).
   */
  #probed?: string | Set<string>;
  /** Tools that reported progress: every later call carries a token; made on first use. */
  #reporting?: Set<string>;

  /**
   * Creates the policy of one connection.
   *
   * @param always Every extendable call carries a token (the gateway's `progressTokens: "always"`).
   */
  constructor(always: boolean) {
    this.#always = always;
  }

  /**
   * The listener to give a call (a token is sent exactly when it is defined).
   *
   * @param toolName The tool's name on the server.
   * @param call The caller's listener, if any, and whether progress may extend the deadline.
   * @returns The caller's listener, a no-op, a learning wrapper, or `undefined` (no token).
   */
  listener(toolName: string, call: ProgressCall): ProgressListener | undefined {
    const { onProgress, extendable } = call;
    if (this.#always || this.#reporting?.has(toolName) === true) {
      return onProgress ?? (extendable ? ignoreProgress : undefined);
    }
    if (onProgress === undefined) {
      if (!extendable || !this.#probe(toolName)) return undefined;
    }
    // Until the tool reports progress, a call with a token learns whether it does.
    return (progress) => {
      const reporting = this.#reporting ??= new Set();
      if (reporting.size < MAX_PROBED) reporting.add(toolName);
      onProgress?.(progress);
    };
  }

  /** Spends a tool's probe; `false` when it was spent already (or too many tools were probed). */
  #probe(toolName: string): boolean {
    const probed = this.#probed;
    if (probed === undefined) {
      this.#probed = toolName;
      return true;
    }
    if (probed === toolName) return false;
    if (typeof probed === "string") {
      this.#probed = new Set([probed, toolName]);
      return true;
    }
    if (probed.has(toolName) || probed.size >= MAX_PROBED) return false;
    probed.add(toolName);
    return true;
  }

  /** Whether any tool has reported progress (else only spent probes are known, cheap to lose). */
  get learned(): boolean {
    return this.#reporting !== undefined;
  }

  /**
   * Whether a tool has reported progress on this connection.
   *
   * @param toolName The tool's name on the server.
   * @returns `true` once a progress report of one of its calls arrived.
   */
  reports(toolName: string): boolean {
    return this.#reporting?.has(toolName) === true;
  }
}
