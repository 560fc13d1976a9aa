import { dirname } from "@std/path";
import { toFsToolError } from "../paths/fs_tool_error.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";
import type { FileAccess, PutOptions, PutResult } from "./file_access.ts";

/**
 * Creates or replaces one whole file in one step (`FileAccess.put`: one round trip in a sandbox
 * session), creating missing parent directories only after that step found one missing, and
 * removing the directories it created again when the file was not written. Throws a
 * `ToolError` naming the file.
 *
 * @param target The checked path.
 * @param options The complete new content (`data`), and the rest as for `FileAccess.put` (with `expect`, the file may be left unwritten).
 * @returns What `put` did.
 */
export async function putFile(
  files: FileAccess,
  target: ResolvedPath,
  options: PutOptions & { data: Uint8Array },
): Promise<PutResult> {
  const { data, ...put } = options;
  const created: string[] = [];
  try {
    const result = await withParents(files, target, {
      created,
      step: () => files.put(target, data, put),
    });
    if (!result.written) await removeDirs(files, created);
    return result;
  } catch (error) {
    await removeDirs(files, created);
    throw toFsToolError(error, { access: "write", shown: target.display, root: target.root });
  }
}

/**
 * Runs a step that writes next to `target`; when it fails with `Deno.errors.NotFound` (usually a
 * missing parent directory), creates the missing parents, records them in `created` (outermost
 * first) and runs the step once more. Usually the directory exists: only a missing one costs the
 * look for parents.
 *
 * @param target The checked path the step writes.
 * @param options `created` receives the directories created; `step` is the step.
 * @returns What the step returned.
 */
export async function withParents<T>(
  files: FileAccess,
  target: ResolvedPath,
  options: { created: string[]; step: () => Promise<T> },
): Promise<T> {
  const { created, step } = options;
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await makeParents(files, dirname(target.real), created);
    return await step();
  }
}

/**
 * Removes directories that `withParents` created, the deepest first (best effort: one that is
 * not empty any more stays).
 *
 * @param created The directories, outermost first.
 */
export async function removeDirs(files: FileAccess, created: readonly string[]): Promise<void> {
  // Clean-up is best effort; the original failure is what the caller reports.
  for (const dir of [...created].reverse()) await files.remove(dir).catch(() => {});
}

async function makeParents(files: FileAccess, dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; (await files.lstat(at)) === undefined; at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing.reverse()) {
    await files.mkdir(path);
    created.push(path);
  }
}
