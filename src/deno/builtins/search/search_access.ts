import type { SearchBudget } from "./search_budget.ts";
import type { TreeView, WalkOptions } from "./walk_tree.ts";

/** The largest file `grep` reads (16 MiB); larger files are skipped. */
export const MAX_SEARCH_BYTES = 16 * 1024 * 1024;

/** What {@linkcode SearchAccess.list} lists: what the walk will visit, and a name filter. */
export interface ListRequest extends Omit<WalkOptions, "only"> {
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
