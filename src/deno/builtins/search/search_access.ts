import type { SearchBudget } from "./search_budget.ts";
import type { SearchTarget } from "./search_target.ts";
import { type TreeView, type WalkOptions, walkTree } from "./walk_tree.ts";

/** The largest file `grep` reads (16 MiB); larger files are skipped. */
export const MAX_SEARCH_BYTES = 16 * 1024 * 1024;

/** What {@linkcode SearchAccess.list} lists: what the walk will visit, and a name filter. */
export interface ListRequest extends WalkOptions {
  /** Files whose name does not match this `*`-and-literals pattern may be left out. */
  readonly name?: string;
}

/** What {@linkcode SearchAccess.read} reads. */
export interface ReadRequest {
  /** The files, relative to the root, in the order wanted. */
  readonly files: readonly string[];
  readonly budget: SearchBudget;
  /** The UTF-8 bytes every wanted file contains (a plain pattern matched with case). */
  readonly literal?: Uint8Array;
}

/**
 * Receives a file's path and content (`undefined`: passed over); returns or resolves to `true`
 * to stop. The content is valid until it resolves: the next file is read only then.
 */
export type OnFile = (
  path: string,
  data: Uint8Array | undefined,
) => boolean | void | Promise<boolean | void>;

/**
 * How the searches reach the files of a root: on the host, or inside the context's sandbox
 * session when bash is sandboxed (a sandboxed command could swap a folder for a symbolic link
 * while the host walks; inside, the link leads only to what that command could read anyway).
 * Chosen per context in `builtin_tools.ts`; the tools never branch on the sandbox.
 */
export interface SearchAccess {
  /**
   * Lists the tree below a folder of a root (never through a symbolic link, never into `.git`).
   *
   * @param request What to list.
   * @returns The tree, for `walkTree`.
   */
  list(root: string, request: ListRequest): Promise<TreeView>;
  /**
   * Reads files in the order given, calling `onFile` until it returns `true`. A file that cannot
   * be read, is not a regular file, is larger than {@linkcode MAX_SEARCH_BYTES} or holds a NUL
   * byte (binary), or (given `literal`) cannot match, may be passed over: it comes without data,
   * or not at all. The next file is read only once `onFile` has resolved.
   *
   * @param request The files, the limits and what a wanted file contains.
   * @param onFile Receives a file's path and content; returns `true` to stop.
   */
  read(root: string, request: ReadRequest, onFile: OnFile): Promise<void>;
}

/** What {@linkcode listFiles} lists: the walk's options below the target, and the name filter. */
export type ListOptions = Omit<WalkOptions, "start"> & Pick<ListRequest, "name">;

/**
 * Lists the regular files of a search target (see `walkTree` for the rules) through the
 * context's search access: on the host, or inside its sandbox session when bash is sandboxed.
 *
 * @param access The context's search access.
 * @param target The checked folder.
 * @param options The walk's options, and `onFile`, called per file (`true` stops the walk).
 * @returns Whether it stopped early.
 */
export async function listFiles(
  access: SearchAccess,
  target: SearchTarget,
  options: ListOptions & { onFile: (path: string) => boolean | void },
): Promise<boolean> {
  const { onFile, ...list } = options;
  const view = await access.list(target.root, { start: target.start, ...list });
  return await walkTree(view, { start: target.start, ...list, onFile });
}
