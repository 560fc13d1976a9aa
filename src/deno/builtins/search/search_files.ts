import type { ListRequest, SearchAccess } from "./search_access.ts";
import type { SearchTarget } from "./search_target.ts";
import { type WalkOptions, walkTree } from "./walk_tree.ts";

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
