/**
 * Where `key` stands in a flat `[key, value, key, value, ...]` list, or -1. The gateway keeps its
 * per-user lists flat (a user's servers, a tier's tool names): most hold one or two entries, and
 * two array slots weigh a fraction of a `Map`.
 *
 * @returns The key's index (its value is at the next one), or -1.
 */
export function pairIndex(list: readonly unknown[] = [], key: string): number {
  for (let i = 0; i < list.length; i += 2) if (list[i] === key) return i;
  return -1;
}
