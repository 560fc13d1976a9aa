/** What is sorted: a folder's entry, by its name. */
interface Named {
  readonly name: string;
}

/** The entries sorted at once (a short step); a larger folder is merged from runs of this many. */
const RUN = 512;
/** The merge lets `pause` run after every this many entries it places. */
const MERGE_SLICE = 1024;

/**
 * Orders entries by the code units of their names (not by locale).
 *
 * @param a One entry.
 * @param b Another.
 * @returns Their order.
 */
export function byName(a: Named, b: Named): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Sorts a folder's entries by name ({@linkcode byName}, stable) in short steps, awaiting `pause`
 * between them: runs of a few hundred entries sorted at once, then merged in slices. A folder of
 * hundreds of thousands of entries (a model's command makes one in seconds) sorted by one
 * `Array.prototype.sort` held the host's event loop for the whole sort.
 *
 * @param entries The entries (left as they are).
 * @param pause Called between steps (the search budget's tick: it yields and checks the limits).
 * @returns A sorted copy.
 */
export async function sortedEntries<T extends Named>(
  entries: readonly T[],
  pause: () => Promise<void>,
): Promise<T[]> {
  let runs: T[][] = [];
  for (let at = 0; at < entries.length; at += RUN) {
    if (at > 0) await pause();
    runs.push(entries.slice(at, at + RUN).sort(byName));
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i + 1 < runs.length; i += 2) {
      merged.push(await merge(runs[i], runs[i + 1], pause));
    }
    if (runs.length % 2 === 1) merged.push(runs[runs.length - 1]);
    runs = merged;
  }
  return runs[0] ?? [];
}

/** Merges two sorted runs (the first's entry first of equal names), pausing in slices. */
async function merge<T extends Named>(
  a: readonly T[],
  b: readonly T[],
  pause: () => Promise<void>,
): Promise<T[]> {
  const out = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = b[j].name < a[i].name ? b[j++] : a[i++];
    if (k % MERGE_SLICE === 0) await pause();
  }
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
