import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { realPathOrUndefined } from "../paths/fs_probes.ts";

/** How often the workspace is measured while a sandboxed command or background process runs. */
export const DISK_POLL_MS = 1_000;

interface DiskState {
  /** KiB the workspace held at the first sandboxed command of this process. */
  readonly baselineKiB: number;
  /** KiB at the last measure. */
  usedKiB: number;
  /** The measure under way: walks of one workspace never overlap. */
  measuring?: Promise<number>;
}

// Per workspace (real path), process-wide like the planted-repository baselines: every context
// on that workspace shares what its commands added.
const states = new Map<string, DiskState>();
const MAX_WORKSPACES = 64;

/**
 * Counts bytes a file tool wrote into the workspace of a sandboxed context toward its disk bound,
 * so that many writes (no command between them, so no measure) cannot pass it: the count is an
 * estimate from above (an overwrite counts in full), and the next {@linkcode checkWorkspaceDisk}
 * that finds it over the bound measures the workspace again before it refuses.
 */
export type NoteWrite = (bytes: number) => void;

const NOTHING_TO_NOTE: NoteWrite = () => {};

/**
 * Refuses a sandboxed command when the session's commands have added more than
 * `bash.limits.diskMiB` to the workspace (measured again first: files may have been deleted
 * since). The first call for a workspace takes its baseline. The measure is `du -skx` in a child
 * process (off the event loop; hard links counted once, sparse files by the disk they hold).
 * Throws a `ToolError` (`tool_error`) naming the figures and what to do.
 *
 * Requires `allow-run` permission for `bash`.
 *
 * @tags allow-run
 * @param ctx The context (bash sandboxed, with limits).
 * @returns What a file tool calls with the bytes it then wrote ({@linkcode NoteWrite}): the
 *   workspace as resolved here, so a write resolves its real path once for both.
 */
export async function checkWorkspaceDisk(ctx: ResolvedContext): Promise<NoteWrite> {
  const bound = boundKiB(ctx);
  if (bound === undefined) return NOTHING_TO_NOTE;
  let real: string;
  try {
    real = Deno.realPathSync(ctx.workspace);
  } catch (error) {
    // A workspace that is gone holds nothing to bound; the command or write fails on its own.
    if (error instanceof Deno.errors.NotFound) return NOTHING_TO_NOTE;
    throw error;
  }
  const note: NoteWrite = (bytes) => {
    const state = states.get(real);
    if (state !== undefined) state.usedKiB += Math.ceil(bytes / 1024);
  };
  let state = states.get(real);
  if (state === undefined) {
    const kib = await duKiB(real);
    state = states.get(real);
    if (state === undefined) {
      state = { baselineKiB: kib, usedKiB: kib };
      states.set(real, state);
      while (states.size > MAX_WORKSPACES) states.delete(states.keys().next().value!);
    }
    return note;
  }
  if (state.measuring !== undefined) await state.measuring.catch(() => {});
  if (state.usedKiB - state.baselineKiB <= bound) return note;
  await measure(real, state);
  if (state.usedKiB - state.baselineKiB > bound) throw overError(ctx, state);
  return note;
}

/**
 * Measures the workspace every {@linkcode DISK_POLL_MS} while a command runs, and once when it
 * ends; calls `onOver` (once) when the session's commands have added more than the bound.
 *
 * @param ctx The context (bash sandboxed, with limits).
 * @param onOver Stops the command.
 * @returns Ends the watch and measures once more: a command's call awaits that measure, so the
 *   calls after it find the figure current (a file tool's write would otherwise wait for it,
 *   and every call would share the machine with it); a background process's end need not.
 */
export function watchWorkspaceDisk(
  ctx: ResolvedContext,
  onOver: () => void,
): () => Promise<void> {
  const bound = boundKiB(ctx);
  const real = realPathOrUndefined(ctx.workspace);
  const state = real === undefined ? undefined : states.get(real);
  if (bound === undefined || real === undefined || state === undefined) {
    return () => Promise.resolve();
  }
  let fired = false;
  const poll = () =>
    measure(real, state).then(() => {
      if (!fired && state.usedKiB - state.baselineKiB > bound) {
        fired = true;
        onOver();
      }
    }, () => {});
  const timer = setInterval(poll, DISK_POLL_MS);
  Deno.unrefTimer(timer);
  return () => {
    clearInterval(timer);
    // A measure that started while the command ran may have missed its last writes.
    const under = state.measuring;
    return under === undefined ? poll() : under.then(poll, poll);
  };
}

/**
 * The error of a command stopped at the bound.
 *
 * @returns The `tool_error`.
 */
export function diskStoppedError(ctx: ResolvedContext): ToolError {
  const state = states.get(Deno.realPathSync(ctx.workspace));
  return state === undefined
    ? new ToolError("tool_error", "The command was stopped: the workspace's disk bound was passed")
    : overError(ctx, state, "The command was stopped: ");
}

function boundKiB(ctx: ResolvedContext): number | undefined {
  if (ctx.bash === false || ctx.bash.sandbox !== "bwrap" || ctx.bash.limits === undefined) {
    return undefined;
  }
  return ctx.bash.limits.diskMiB * 1024;
}

function overError(ctx: ResolvedContext, state: DiskState, lead = ""): ToolError {
  const added = Math.ceil((state.usedKiB - state.baselineKiB) / 1024);
  const bound = ctx.bash === false ? 0 : ctx.bash.limits?.diskMiB ?? 0;
  return new ToolError(
    "tool_error",
    `${lead}the sandbox's commands added ${added} MiB to the workspace, more than its disk bound ` +
      `(bash.limits.diskMiB: ${bound} MiB); commands are refused until files are deleted: delete ` +
      "what is not needed with apply_patch (*** Delete File), or ask the user to free space or " +
      "raise the bound",
  );
}

function measure(real: string, state: DiskState): Promise<number> {
  if (state.measuring !== undefined) return state.measuring;
  const measuring = duKiB(real).then((kib) => state.usedKiB = kib).finally(() => {
    state.measuring = undefined;
  });
  state.measuring = measuring;
  return measuring;
}

async function duKiB(real: string): Promise<number> {
  // Through bash, which the context's flags already allow to run. du exits 1 when an entry
  // could not be read and still prints the total of the rest.
  const output = await new Deno.Command("bash", {
    args: ["-c", 'exec du -skx -- "$1"', "du", real],
    // A clean environment: a host's BASH_ENV (or ENV) could name a file the model can write,
    // which this host-side shell would otherwise run unconfined.
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LC_ALL: "C" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const kib = Number.parseInt(new TextDecoder().decode(output.stdout).split("\t")[0], 10);
  if (!Number.isSafeInteger(kib)) {
    throw new ToolError(
      "tool_error",
      "The workspace's disk usage could not be measured (du printed no total), so no sandboxed " +
        "command runs: check that coreutils' du is installed",
    );
  }
  return kib;
}
