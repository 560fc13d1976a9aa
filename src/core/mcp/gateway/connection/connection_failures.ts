import { findAuthorizationRequired } from "../oauth/authorization_required_error.ts";
import type { Redactor } from "../calls/redactor.ts";
import type { ConnectionSettings } from "./connection_settings.ts";

/**
 * A connection's failures since its last success: what the last one said (redacted, for
 * `status()` and errors) and the exponential backoff before the next attempt. A connection makes
 * one on its first failure and lets it go on success, so a healthy connection holds none.
 */
export class ConnectionFailures {
  /** The last failure, one redacted line. */
  message = "";
  /** Failed attempts since the last success. */
  attempts = 0;
  #settings: ConnectionSettings["reconnect"];
  #redactor: Redactor;
  #nextAt = 0;

  /**
   * @param settings The backoff's delays.
   * @param redactor Keeps the connection's credentials out of the messages.
   */
  constructor(settings: ConnectionSettings["reconnect"], redactor: Redactor) {
    this.#settings = settings;
    this.#redactor = redactor;
  }

  /** Milliseconds until the next attempt may start (0 when it may start now). */
  get waitMs(): number {
    return Math.max(0, this.#nextAt - performance.now());
  }

  /** Fails at once while the next attempt must wait, saying until when (never waits it out). */
  throwIfWaiting(): void {
    const wait = this.waitMs;
    if (wait > 0) throw new Error(`${this.message}; next attempt in ${Math.ceil(wait)} ms`);
  }

  /**
   * Records a failed connect: the next waits `initial × factor^(attempts − 1)`, capped; waiting
   * for the user to authorize, the next use may try again at once.
   *
   * @param error What the connect threw.
   * @returns What to throw: the authorization request, or an error with the message.
   */
  connectFailed(error: unknown): Error {
    this.attempts++;
    const { initialDelayMs, maxDelayMs, factor } = this.#settings;
    const authorization = findAuthorizationRequired(error);
    const delay = Math.min(maxDelayMs, initialDelayMs * factor ** (this.attempts - 1));
    this.#nextAt = performance.now() + (authorization === undefined ? delay : 0);
    this.message = authorization?.summary ?? this.describe(error);
    return authorization ?? new Error(this.message);
  }

  /**
   * Records a lost client (not counted as a failed attempt): the next attempt may start at once,
   * unless `retryInMs` says later.
   *
   * @param error Why, when known (a stdio server's exit, an undeliverable request).
   * @param retryInMs When the next attempt may start.
   */
  lost(error: Error | undefined, retryInMs = 0): void {
    this.message = error === undefined ? "The connection was lost" : this.describe(error);
    this.#nextAt = performance.now() + retryInMs;
  }

  /** The first line of an error's message, redacted before it is cut (a cut token is not found). */
  describe(error: unknown): string {
    const message = this.#redactor.text(error instanceof Error ? error.message : String(error));
    return message.replace(/^(TypeError|Error): /, "").split("\n", 1)[0].slice(0, 500);
  }
}
