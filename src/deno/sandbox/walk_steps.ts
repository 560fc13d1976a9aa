/**
 * A walk written as a generator that yields between small steps, run either to its end at once
 * or with the event loop let in between. One walk serves both: the quick synchronous try that
 * most calls take, and the way that never holds the host's event loop for long.
 */
export type WalkSteps<T> = Generator<WalkRequest | undefined, T, Deno.DirEntry[] | undefined>;

/**
 * What a step may ask of its driver: a folder's entries, read at once by {@linkcode runSteps}
 * and on a worker thread by {@linkcode runStepsYielding} (a folder of many thousand entries is
 * one long call otherwise). A bare `yield` only offers a pause.
 */
export interface WalkRequest {
  /** The folder to list. */
  readonly readDir: string;
}

/**
 * Lists a large folder through the driver (`yield* readDirStep(path)`): the entries, or the
 * error the read threw, thrown into the walk.
 *
 * @param path The folder.
 * @returns Its entries.
 */
export function* readDirStep(path: string): WalkSteps<Deno.DirEntry[]> {
  return (yield { readDir: path })!;
}

/** How long a walk runs before it lets the event loop in (`runStepsYielding`). */
export const WALK_SLICE_MS = 4;

/**
 * Runs a walk synchronously, giving up when it takes longer than `budgetMs` (then the caller
 * takes {@linkcode runStepsYielding}: a large walk must not hold the event loop).
 *
 * @param steps The walk.
 * @param budgetMs The most milliseconds to run; default: to its end.
 * @returns Its result, or `undefined` when it ran out of time (the walk is closed).
 */
export function runSteps<T>(steps: WalkSteps<T>, budgetMs = Infinity): T | undefined {
  const started = performance.now();
  let answer: Deno.DirEntry[] | undefined;
  let failure: { error: unknown } | undefined;
  for (;;) {
    const step = failure === undefined ? steps.next(answer) : steps.throw(failure.error);
    answer = undefined;
    failure = undefined;
    if (step.done) return step.value;
    if (step.value !== undefined) {
      try {
        answer = [...Deno.readDirSync(step.value.readDir)];
      } catch (error) {
        failure = { error };
      }
    }
    if (performance.now() - started > budgetMs) {
      steps.return(undefined as T);
      return undefined;
    }
  }
}

/**
 * Runs a walk to its end, letting the event loop run (a macrotask) after every
 * {@linkcode WALK_SLICE_MS} of work: timers, other callers' requests and I/O go on meanwhile.
 *
 * @param steps The walk.
 * @returns Its result.
 */
export async function runStepsYielding<T>(steps: WalkSteps<T>): Promise<T> {
  let sliceStarted = performance.now();
  let answer: Deno.DirEntry[] | undefined;
  let failure: { error: unknown } | undefined;
  for (;;) {
    const step = failure === undefined ? steps.next(answer) : steps.throw(failure.error);
    answer = undefined;
    failure = undefined;
    if (step.done) return step.value;
    if (step.value !== undefined) {
      try {
        answer = await Array.fromAsync(Deno.readDir(step.value.readDir));
      } catch (error) {
        failure = { error };
      }
      sliceStarted = performance.now();
      continue;
    }
    if (performance.now() - sliceStarted >= WALK_SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStarted = performance.now();
    }
  }
}
