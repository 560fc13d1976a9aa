/**
 * Runs `step` and ignores what it throws: for closing a connection or signalling a process that
 * may have ended already, when nothing is left to do about a failure.
 */
export function quietly(step: () => unknown): void {
  try {
    step();
  } catch {
    // Ended or closed already.
  }
}
