/**
 * A problem with the command line or the config file: the CLI prints its message and exits 2
 * (misuse), never a stack trace.
 */
export class UsageError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong and what to do, in plain words.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
