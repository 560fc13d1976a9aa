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

/** What a runner hands the walk's next step: a folder's entries, or the error its read threw. */
type StepAnswer = { entries: Deno.DirEntry[] } | { error: unknown } | undefined;

/**
 * The walk's next step, given the answer to what it asked (the error a read threw is thrown into
 * the walk): what it asks for next (a folder, or a bare pause), or its result. Both runners step
 * through this; they differ only in how they read a folder and when they pause.
 */
function advance<T>(
  steps: WalkSteps<T>,
  answer: StepAnswer,
): IteratorResult<WalkRequest | undefined, T> {
  return answer !== undefined && "error" in answer
    ? steps.throw(answer.error)
    : steps.next(answer?.entries);
}

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
  let step = advance(steps, undefined);
  while (!step.done) {
    let answer: StepAnswer;
    if (step.value !== undefined) {
      try {
        answer = { entries: [...Deno.readDirSync(step.value.readDir)] };
      } catch (error) {
        answer = { error };
      }
    }
    if (performance.now() - started > budgetMs) {
      steps.return(undefined as T);
      return undefined;
    }
    step = advance(steps, answer);
  }
  return step.value;
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
  let step = advance(steps, undefined);
  while (!step.done) {
    let answer: StepAnswer;
    if (step.value !== undefined) {
      // A folder of many thousand entries is listed off the event loop (`Deno.readDir`).
      answer = await Array.fromAsync(Deno.readDir(step.value.readDir))
        .then((entries) => ({ entries }), (error) => ({ error }));
      sliceStarted = performance.now();
    } else if (performance.now() - sliceStarted >= WALK_SLICE_MS) {
      // A timeout, not an immediate: while immediates keep the loop busy, Deno runs timers but
      // polls sockets and pipes only every few dozen turns (other users' requests waited).
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStarted = performance.now();
    }
    step = advance(steps, answer);
  }
  return step.value;
}
