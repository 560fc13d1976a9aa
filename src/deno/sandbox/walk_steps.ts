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

/** What the driver hands the walk's next step: a folder's entries, or the error its read threw. */
type StepAnswer = { entries: Deno.DirEntry[] } | { error: unknown } | undefined;

/**
 * The one step loop of both runners: hands each step its answer (entries, or the error thrown
 * into the walk) and yields what the walk asks for (a folder, or a bare pause). A runner reads
 * the folder its way and sends the answer back; `runSteps` and `runStepsYielding` differ only in
 * how they read and when they pause.
 */
function* driven<T>(steps: WalkSteps<T>): Generator<WalkRequest | undefined, T, StepAnswer> {
  let answer: StepAnswer;
  for (;;) {
    const step = answer !== undefined && "error" in answer
      ? steps.throw(answer.error)
      : steps.next(answer?.entries);
    if (step.done) return step.value;
    answer = yield step.value;
  }
}

/** Reads a folder for a step: its entries, or the error the read threw (given to the walk). */
function settle(read: () => Deno.DirEntry[]): StepAnswer {
  try {
    return { entries: read() };
  } catch (error) {
    return { error };
  }
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
  const driver = driven(steps);
  let answer: StepAnswer;
  for (;;) {
    const step = driver.next(answer);
    if (step.done) return step.value;
    const request = step.value;
    answer = request === undefined
      ? undefined
      : settle(() => [...Deno.readDirSync(request.readDir)]);
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
  const driver = driven(steps);
  let answer: StepAnswer;
  for (;;) {
    const step = driver.next(answer);
    if (step.done) return step.value;
    const request = step.value;
    answer = undefined;
    if (request !== undefined) {
      // A folder of many thousand entries is listed off the event loop (`Deno.readDir`).
      try {
        answer = { entries: await Array.fromAsync(Deno.readDir(request.readDir)) };
      } catch (error) {
        answer = { error };
      }
      sliceStarted = performance.now();
    } else if (performance.now() - sliceStarted >= WALK_SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStarted = performance.now();
    }
  }
}
