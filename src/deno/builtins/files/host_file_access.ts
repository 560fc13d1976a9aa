import type { ResolvedContext } from "../builtin_context.ts";
import {
  checkOpenedFileSync,
  checkPathStillLeadsTo,
  checkStagedFile,
} from "../paths/opened_file_check.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";
import {
  type FileAccess,
  type FileEntry,
  type FileStat,
  fileStat,
  keptPermissions,
  meetsExpectation,
  type PutOptions,
  type PutResult,
  type StageOptions,
} from "./file_access.ts";
import { checkSameFile } from "./staged_commit.ts";
import { stageFile } from "./staged_file.ts";
import { lstatSyncOrUndefined } from "../paths/fs_probes.ts";

/**
 * The file access of a context whose bash is not sandboxed: Deno's file API in the host process.
 * An opened or staged file is checked against the path it was meant for (see
 * `opened_file_check.ts`), and an opened file once more when it is closed.
 *
 * Metadata calls (stat, rename, link, mkdir, remove), the reads of an opened regular file and
 * staging a new file are synchronous: microseconds each, where an asynchronous call costs a
 * thread hop of tens, and none can block on a FIFO (staging creates a new file and never opens an
 * existing path). The only call that could, opening an existing file for reading, stays
 * asynchronous: a FIFO swapped in after the check blocks one call, not the process.
 *
 * Requires `allow-read` permission for the workspace and read-only roots, `allow-write` for the
 * workspace.
 *
 * @tags allow-read, allow-write
 */
export function hostFileAccess(ctx: ResolvedContext): FileAccess {
  const stage = (target: ResolvedPath, data: Uint8Array, options: StageOptions) =>
    stageFile(target.real, data, {
      mode: options.mode,
      check: (file, temp) => checkStagedFile(ctx, file, { temp, target, shown: options.shown }),
    });
  return Object.freeze(
    {
      where: "host" as const,
      stat: (path: string) => Promise.try(() => fileStat(Deno.statSync(path))),
      lstat: (path: string) =>
        Promise.try(() => {
          const info = lstatSyncOrUndefined(path);
          return info === undefined ? undefined : fileStat(info);
        }),
      async open(path: ResolvedPath, shown: string) {
        // Checked before opening: opening a FIFO would block.
        const before = Deno.statSync(path.real);
        if (!before.isFile) return { info: fileStat(before) };
        const file = await Deno.open(path.real, { read: true });
        try {
          const opened = checkOpenedFileSync(ctx, file, { target: path, shown });
          // Without the check (a root reached through a symlink), fstat is outside the flags too:
          // the path's information stands in, as before the seam.
          const info = fileStat(opened ?? before);
          if (!info.isFile) {
            file.close();
            return { info };
          }
          return {
            info,
            file: {
              info,
              // A regular file (checked on the handle): reading it never waits for a writer.
              read: (buffer: Uint8Array) => Promise.resolve(file.readSync(buffer)),
              // Checking again after reading makes a racing swap win twice in a row.
              close: () =>
                Promise.try(() => {
                  try {
                    if (opened !== undefined) {
                      checkPathStillLeadsTo(ctx, opened, { target: path, shown });
                    }
                  } finally {
                    file.close();
                  }
                }),
            },
          };
        } catch (error) {
          file.close();
          throw error;
        }
      },
      stage,
      async put(target: ResolvedPath, data: Uint8Array, options: PutOptions): Promise<PutResult> {
        let before: FileStat | undefined;
        let mode = options.mode;
        if (options.expect !== undefined) {
          const found = lstatSyncOrUndefined(target.real);
          before = found === undefined ? undefined : fileStat(found);
          if (!meetsExpectation(options.expect, before)) return { written: false, before };
          mode ??= keptPermissions(before);
        }
        const temp = await stage(target, data, { mode, shown: options.shown });
        try {
          if (options.identity) checkSameFile(lstatSyncOrUndefined(target.real), options.identity);
          if (options.expect === "absent") {
            // Only where nothing is at this moment: a link never replaces (a rename would
            // replace a file that appeared since the look, e.g. one of a concurrent create).
            const found = linkNew(temp, target.real);
            await Promise.try(() => Deno.removeSync(temp)).catch(() => {});
            if (found !== undefined) return { written: false, before: fileStat(found) };
          } else Deno.renameSync(temp, target.real);
        } catch (error) {
          await Promise.try(() => Deno.removeSync(temp)).catch(() => {});
          throw error;
        }
        return { written: true, before };
      },
      mkdir: (path: string) => Promise.try(() => Deno.mkdirSync(path)),
      rename: (from: string, to: string) => Promise.try(() => Deno.renameSync(from, to)),
      link: (from: string, to: string) => Promise.try(() => Deno.linkSync(from, to)),
      remove: (path: string) => Promise.try(() => Deno.removeSync(path)),
      async readDir(path: string): Promise<FileEntry[]> {
        const entries: FileEntry[] = [];
        for await (const { name, isFile, isDirectory, isSymlink } of Deno.readDir(path)) {
          entries.push({ name, isFile, isDirectory, isSymlink });
        }
        return entries;
      },
    } satisfies FileAccess & { stat(path: string): Promise<FileStat> },
  );
}

/**
 * Links `to` to `from` unless something is at `to`: what is there, or `undefined` when linked (a
 * thing there that is gone by the look rethrows `AlreadyExists`).
 */
function linkNew(from: string, to: string): Deno.FileInfo | undefined {
  // A file that was there at the link and gone at the look: the path is free again, try again.
  for (let attempt = 1;; attempt++) {
    try {
      Deno.linkSync(from, to);
      return undefined;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const found = lstatSyncOrUndefined(to);
      if (found !== undefined) return found;
      if (attempt === 3) throw error;
    }
  }
}
