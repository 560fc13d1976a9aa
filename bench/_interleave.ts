/**
 * The side-by-side loop of the interleaved benchmarks: each round times a batch of calls of each
 * variant, rotating which goes first, so load from other processes on a shared machine hits all
 * variants alike; a variant's figure is the median of its rounds' per-call means.
 *
 * @module
 */

/** One variant: its name and one call of it. */
export type InterleavedVariant = readonly [name: string, call: () => Promise<unknown>];

/** Options of {@linkcode interleave}. */
export interface InterleaveOptions {
  /** Rounds, each timing one batch of every variant. */
  rounds: number;
  /** Calls per batch. Default: 500. */
  batch?: number;
}

/** What {@linkcode interleave} measured of one variant. */
export interface InterleavedMedian {
  /** The variant's name. */
  name: string;
  /** The median of its rounds' per-call means, in microseconds. */
  medianUs: number;
}

/**
 * Times the variants side by side.
 *
 * @param variants The variants.
 * @param options Rounds and batch size.
 * @returns The medians, in the variants' order.
 */
export async function interleave(
  variants: readonly InterleavedVariant[],
  options: InterleaveOptions,
): Promise<InterleavedMedian[]> {
  const batch = options.batch ?? 500;
  const times: number[][] = variants.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length;
      const call = variants[index][1];
      const started = performance.now();
      for (let i = 0; i < batch; i++) await call();
      times[index].push((performance.now() - started) / batch);
    }
  }
  return variants.map(([name], index) => {
    const sorted = times[index].sort((a, b) => a - b);
    return { name, medianUs: sorted[Math.floor(sorted.length / 2)] * 1000 };
  });
}
