import type { ResolvedContext } from "../builtin_context.ts";
import { usesFileSandbox } from "./_search_sandbox.ts";
import { HostTree } from "./host_tree.ts";
import { listInSandbox, readInSandbox } from "./sandboxed_search.ts";
import type { SearchBudget } from "./search_budget.ts";
import type { SearchTarget } from "./search_target.ts";
import { type TreeView, walkTree } from "./walk_tree.ts";

/** The largest file `grep` reads (16 MiB); larger files are skipped. */
export const MAX_SEARCH_BYTES = 16 * 1024 * 1024;

/** What {@linkcode listFiles} lists. */
export interface ListOptions {
  /** Apply the `.gitignore` files. */
  readonly gitignore: boolean;
  /** The deepest level below the target folder to list. */
  readonly maxDepth?: number;
  /** A folder below the target (relative to it): only it is entered. */
  readonly only?: string;
  /** A `find -name` pattern files must match (a filter the walk applies again anyway). */
  readonly name?: string;
  /** The limits. */
  readonly budget: SearchBudget;
}

/** Files listed for a search, relative to the target's root, with their sizes when known. */
export interface ListedFiles {
  /** Whether the listing stopped early because `onFile` asked to. */
  readonly stopped: boolean;
  /** The size of a listed file, when known before reading. */
  size(path: string): number | undefined;
}

/**
 * Lists the regular files of a search target (see `walkTree` for the rules), on the host, or
 * inside the file sandbox when bash is sandboxed (a sandboxed command could swap a folder for a
 * symbolic link while the host walks).
 *
 * Requires `allow-read` permission for the roots, and `allow-run` for `bwrap` when sandboxed.
 *
 * @tags allow-read, allow-run
 * @param ctx The request's context.
 * @param target The checked folder.
 * @param options The rules and limits.
 * @param onFile Receives each file's path relative to the root; returns `true` to stop.
 * @returns Whether it stopped early, and the sizes known.
 */
export async function listFiles(
  ctx: ResolvedContext,
  target: SearchTarget,
  options: ListOptions,
  onFile: (path: string) => boolean | void,
): Promise<ListedFiles> {
  const view: TreeView = usesFileSandbox(ctx)
    ? await listInSandbox(ctx, target.root, { start: target.start, ...options })
    : new HostTree(target.root);
  const stopped = await walkTree(view, { start: target.start, ...options }, onFile);
  return { stopped, size: (path) => view.size?.(path) };
}

/**
 * Reads files for a search, in the order given, until `onFile` returns `true`: on the host, or
 * inside the file sandbox when bash is sandboxed (where, given a `literal`, GNU grep first picks the
 * files containing it, so only those cross the sandbox). A file that cannot be read, is not a regular
 * file any more, or is larger than {@linkcode MAX_SEARCH_BYTES} comes without data. On the host
 * a file whose first bytes contain a NUL byte comes with only those bytes (it is binary), and
 * the data is valid only until `onFile` returns.
 *
 * Requires `allow-read` permission for the roots, and `allow-run` for `bwrap` when sandboxed.
 *
 * @tags allow-read, allow-run
 * @param ctx The request's context.
 * @param target The checked folder or file.
 * @param options The files (relative to the root) and the limits.
 * @param onFile Receives each file's path and content; returns `true` to stop.
 */
export async function readFiles(
  ctx: ResolvedContext,
  target: SearchTarget,
  options: { files: readonly string[]; budget: SearchBudget; literal?: Uint8Array },
  onFile: (path: string, data: Uint8Array | undefined) => boolean | void,
): Promise<void> {
  if (usesFileSandbox(ctx)) {
    await readInSandbox(ctx, target.root, { ...options, maxBytes: MAX_SEARCH_BYTES }, onFile);
    return;
  }
  const buffer = new Uint8Array(64 * 1024);
  for (const path of options.files) {
    await options.budget.tick();
    const full = path === "" ? target.root : `${target.root}/${path}`;
    if (onFile(path, readBounded(full, buffer)) === true) return;
  }
}

/**
 * Reads a file up to the size limit. A read that fills less than the buffer is taken as the end of
 * the (regular) file, which spares most files their second read; a file that goes on past its
 * first 64 KiB stops there when those hold a NUL byte (a binary file, which the caller skips), and
 * otherwise is read whole without looking for NUL bytes (the caller does, when it needs to).
 */
function readBounded(path: string, buffer: Uint8Array): Uint8Array | undefined {
  try {
    using file = Deno.openSync(path, { read: true });
    const first = file.readSync(buffer) ?? 0;
    // Most files fit the shared buffer, and are copied once (valid until the next file is read).
    if (first < buffer.length) return buffer.subarray(0, first);
    if (buffer.includes(0)) return buffer;
    const chunks: Uint8Array[] = [buffer.slice()];
    let length = first;
    for (;;) {
      const chunk = new Uint8Array(256 * 1024);
      const read = file.readSync(chunk);
      if (read === null) break;
      length += read;
      if (length > MAX_SEARCH_BYTES) return undefined;
      chunks.push(chunk.subarray(0, read));
    }
    const all = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  } catch {
    return undefined;
  }
}
