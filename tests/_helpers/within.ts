/**
 * Waits for a promise at most `ms`: its value, or `"late"` past it (the promise is left to settle
 * on its own). For tests that must tell a hang from an answer without hanging themselves.
 *
 * @module
 */

/** The promise's value, or `"late"` when it has not settled within `ms`. */
export async function within<T>(pending: Promise<T>, ms: number): Promise<T | "late"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      pending,
      new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
