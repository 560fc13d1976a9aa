import { basename, dirname, join } from "@std/path";

/** Checks a new, still empty temporary file before content is written to it; throws to refuse. */
export type StagedFileCheck = (file: Deno.FsFile, temp: string) => void;

/**
 * Writes data to a new temporary file next to `target` (same directory, so that a rename onto
 * the target is atomic), with the given permission bits. The file is created empty, passed to
 * `check` (which may refuse it, for example when a swapped symlink put it outside the
 * workspace), and only then filled. Removes the temporary file again when anything fails.
 *
 * @param target The path the data is meant for.
 * @param data The complete new content.
 * @param options Permission bits to give the file (`mode`, those of the file it replaces), if any, and a `check` that inspects the new file before any content is written.
 * @returns The temporary file's path.
 */
export async function stageFile(
  target: string,
  data: Uint8Array,
  options: { mode?: number; check?: StagedFileCheck } = {},
): Promise<string> {
  const { mode, check } = options;
  const temp = tempPathFor(target);
  try {
    {
      // Synchronous, as every step here: creating never opens an existing path (a FIFO or a
      // symlink there fails it), so nothing can block, and each call costs microseconds where an
      // asynchronous one costs a thread hop of tens.
      using file = Deno.openSync(temp, { write: true, createNew: true, mode: mode ?? 0o666 });
      check?.(file, temp);
      for (let written = 0; written < data.length;) {
        written += file.writeSync(data.subarray(written));
      }
    }
    if (mode !== undefined) Deno.chmodSync(temp, mode);
    return temp;
  } catch (error) {
    // Clean-up is best effort; the original failure is what the caller reports.
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * A fresh temporary path in the directory of `target`, hidden and recognisable.
 *
 * @param target The real path of the file.
 * @returns A path that does not exist yet (with overwhelming probability).
 */
export function tempPathFor(target: string): string {
  const name = basename(target).slice(0, 100);
  return join(dirname(target), `.${name}.toolroute-${crypto.randomUUID().slice(0, 8)}.tmp`);
}
