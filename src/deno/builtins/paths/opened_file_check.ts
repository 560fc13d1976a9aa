import { dirname, relative } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import { within } from "../../sandbox/within.ts";
import { contextRoots } from "./allowed_roots.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote } from "./fs_tool_error.ts";
import { outsideError, type ResolvedPath, resolveReadPath } from "./workspace_paths.ts";

/**
 * Checks that a file opened for reading is the file its path leads to inside the allowed roots,
 * narrowing the race in which a concurrent process (such as a background command) swaps a
 * checked directory for a symlink between the path check and the open.
 *
 * Deno checks `fstat` of an open file against the path resolved when it was opened, so under the
 * context's exact flags (`denoFlags`) a file opened outside them is refused; the open file's
 * identity (`dev`, `ino`) must also equal that of the file the path resolves to after checking
 * containment again, and no component below the root may have become a symlink. All of these are
 * path-based, so they narrow the window (callers check again after reading); they cannot close it.
 *
 * The checks are synchronous metadata calls: microseconds each, where an asynchronous call costs
 * a thread hop of tens (none opens anything, so none can block on a FIFO).
 *
 * @param file The file opened at `target.real`.
 * @param path The path as checked before opening (`target`) and as the model gave it (`shown`).
 * @returns The open file's information, or `undefined` when a symlinked root prevents the check.
 */
export function checkOpenedFileSync(
  ctx: ResolvedContext,
  file: Deno.FsFile,
  path: { target: ResolvedPath; shown: string },
): Deno.FileInfo | undefined {
  const { target, shown } = path;
  const opened = describeOpened(ctx, file, target, shown, "reads");
  if (opened === undefined) return undefined;
  checkPathStillLeadsTo(ctx, opened, { target, shown });
  return opened;
}

/**
 * The path half of {@linkcode checkOpenedFileSync}, for checking again after reading: no
 * component below the root is a symlink, and the path, resolved and checked for containment
 * again, still leads to the opened file. The open file's own `fstat` is not repeated: a handle
 * keeps its file (`dev`, `ino`) and Deno checks it against the path resolved when it was opened,
 * so a second `fstat` answers the same.
 *
 * @param opened What {@linkcode checkOpenedFileSync} returned for the open file.
 * @param path The path as checked before opening (`target`) and as the model gave it (`shown`).
 */
export function checkPathStillLeadsTo(
  ctx: ResolvedContext,
  opened: Deno.FileInfo,
  path: { target: ResolvedPath; shown: string },
): void {
  const { target, shown } = path;
  checkNoSymlinkBelow(target, shown);
  const again = resolveReadPath(ctx, shown);
  const now = Deno.statSync(again.real);
  if (opened.dev !== now.dev || opened.ino !== now.ino) throw swapped(shown);
}

/**
 * Checks that a temporary file just created for writing is inside the workspace before any
 * content is written to it: Deno checks `utime` of an open file against write access to the path
 * resolved when it was opened (so under the context's exact flags a file created through a
 * swapped symlink is refused), and its directory must still resolve inside the workspace. Like
 * {@linkcode checkOpenedFileSync}, this narrows the race; it cannot close it.
 *
 * @param file The new, empty temporary file.
 * @param path The temporary file's path (`temp`), the checked `target` it is staged for, and the path as the model gave it (`shown`).
 */
export function checkStagedFile(
  ctx: ResolvedContext,
  file: Deno.FsFile,
  path: { temp: string; target: ResolvedPath; shown: string },
): void {
  const { temp, target, shown } = path;
  const opened = describeOpened(ctx, file, target, shown, "writes");
  if (opened === undefined) return;
  checkNoSymlinkBelow({ ...target, real: temp }, shown);
  const workspace = contextRoots(ctx).workspace.real;
  const directory = Deno.realPathSync(dirname(temp));
  const now = Deno.statSync(temp);
  if (!within(workspace, directory) || opened.dev !== now.dev || opened.ino !== now.ino) {
    throw swapped(shown);
  }
}

function describeOpened(
  ctx: ResolvedContext,
  file: Deno.FsFile,
  target: ResolvedPath,
  shown: string,
  what: "reads" | "writes",
): Deno.FileInfo | undefined {
  try {
    if (what === "writes") {
      // Deno checks `utime` of an open file against write access to its resolved path.
      const now = new Date();
      file.utimeSync(now, now);
    }
    return file.statSync();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    // A root reached through a symlink: every canonical path is outside the declared flags.
    if (Deno.realPathSync(target.root) !== target.root) return undefined;
    throw outsideError(shown, what, { viaLink: true, ctx });
  }
}

/** The checked path had no symlink below its root: one appearing now means a swap. */
function checkNoSymlinkBelow(target: ResolvedPath, shown: string): void {
  const rest = relative(target.root, target.real);
  // On components: a name such as "..notes" inside the root must still be walked.
  if (rest === "" || rest === ".." || rest.startsWith("../")) return;
  let at = target.root;
  for (const part of rest.split("/")) {
    at = `${at}/${part}`;
    if (Deno.lstatSync(at).isSymlink) throw swapped(shown);
  }
}

function swapped(shown: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${
      quote(shown)
    } changed while it was being opened (a symbolic link was swapped in); the operation was refused`,
  );
}
