import type { SearchAccess } from "./search_access.ts";
import type { SearchBudget } from "./search_budget.ts";
import type { SearchTarget } from "./search_target.ts";
import { walkTree } from "./walk_tree.ts";

/** What {@linkcode listFiles} lists. */
export interface ListOptions {
  /** Apply the `.gitignore` files. */
  readonly gitignore: boolean;
  /** The deepest level below the target folder to list. */
  readonly maxDepth?: number;
  /** A folder below the target (relative to it): only it is entered. */
  readonly only?: string;
  /** A `*`-and-literals pattern of names (a filter the walk applies again anyway). */
  readonly name?: string;
  readonly budget: SearchBudget;
}

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
