/** Exponential backoff settings. */
export interface BackoffSettings {
  /** Delay after the first failure, in milliseconds. */
  initialDelayMs: number;
  /** Longest delay, in milliseconds. */
  maxDelayMs: number;
  /** Growth of the delay per failure. */
  factor: number;
}

/** Consecutive failures of a connection and when the next attempt may start. */
export class Backoff {
  /** Failed attempts since the last success. */
  attempts = 0;
  #settings: BackoffSettings;
  #nextAt = 0;

  /**
   * Creates the backoff.
   *
   * @param settings The delays.
   */
  constructor(settings: BackoffSettings) {
    this.#settings = settings;
  }

  /** Milliseconds until the next attempt may start (0 when it may start now). */
  get waitMs(): number {
    return Math.max(0, this.#nextAt - performance.now());
  }

  /** Records a failed attempt: the next waits `initial × factor^(attempts − 1)`, capped. */
  failed(): void {
    this.attempts++;
    const { initialDelayMs, maxDelayMs, factor } = this.#settings;
    this.#nextAt = performance.now() +
      Math.min(maxDelayMs, initialDelayMs * factor ** (this.attempts - 1));
  }

  /** Records a success. */
  succeeded(): void {
    this.attempts = 0;
    this.#nextAt = 0;
  }

  /**
   * Lets the next attempt start after `ms` (0: now), without counting a failure.
   *
   * @param ms The delay.
   */
  retryIn(ms: number): void {
    this.#nextAt = performance.now() + ms;
  }
}
