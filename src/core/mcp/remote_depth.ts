/**
 * Deepest nesting of a remote result or schema that is walked; deeper is refused, not passed.
 * Every walk of remote JSON below this bound recurses at most this deep, which fits the smaller
 * stack of a worker thread.
 */
export const MAX_REMOTE_DEPTH = 1_000;

/**
 * Whether a JSON value nests objects or arrays deeper than `max` levels (the value itself is
 * level 0). Walks with a stack of its own, not the call stack, so no depth of hostile input can
 * overflow it.
 *
 * @param value The value, as parsed from JSON.
 * @param max The most levels allowed.
 * @returns `true` when some object or array lies deeper than `max`.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth > max) return true;
    for (const inner of Object.values(item)) pending.push([inner, depth + 1]);
  }
  return false;
}
