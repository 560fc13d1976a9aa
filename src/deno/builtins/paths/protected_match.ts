import { within } from "../../sandbox/within.ts";

/**
 * Normalizes one path component the way a case-insensitive file system, or Windows, may treat it:
 * lower case, trailing dots and spaces removed (`.GIT.` and `.git ` name `.git` there).
 *
 * @param component One path component.
 * @returns The normalized component.
 */
export function normalizeComponent(component: string): string {
  const lower = component.toLowerCase();
  // Most names end in neither: no regular expression run for them.
  const last = lower.charCodeAt(lower.length - 1);
  if (last !== 0x2e && last !== 0x20) return lower;
  return lower.replace(/[. ]+$/, "") || lower;
}

/**
 * The protected path a workspace-relative path falls under, ignoring case and trailing dots and
 * spaces. A protected name without a slash (the default `.git`) is protected at any depth, like a
 * `.gitignore` pattern; one with a slash (`config/secrets`, `./deno.json`) only at that place.
 *
 * @param rel A normalized path relative to the workspace (no `..`).
 * @param protectedPaths The context's protected paths, relative to the workspace.
 * @returns The matching protected path, or `undefined`.
 */
export function protectedMatch(
  rel: string,
  protectedPaths: readonly string[],
): string | undefined {
  // A single name (each entry of a directory the sandbox's protected-mounts walk lists) is
  // neither split nor joined.
  const single = !rel.includes("/");
  const components = single ? undefined : rel.split("/").map(normalizeComponent);
  const lower = components === undefined ? normalizeComponent(rel) : components.join("/");
  for (const { path, anchored, name } of compiled(protectedPaths)) {
    if (
      anchored
        ? within(name, lower)
        : components === undefined
        ? lower === name
        : components.includes(name)
    ) return path;
  }
  return undefined;
}

interface CompiledPath {
  readonly path: string;
  readonly anchored: boolean;
  readonly name: string;
}

// Each frozen list (a context's) is normalized once, not at every match: the sandbox matches
// every entry of each directory it lists before a command.
const compiledLists = new WeakMap<readonly string[], readonly CompiledPath[]>();

function compiled(protectedPaths: readonly string[]): readonly CompiledPath[] {
  const kept = compiledLists.get(protectedPaths);
  if (kept !== undefined) return kept;
  const list = protectedPaths.map((path) => ({
    path,
    anchored: path.startsWith("./") || path.includes("/"),
    name: path.replace(/^\.\//, "").split("/").map(normalizeComponent).join("/"),
  }));
  // A list that can still change is compiled again at each match.
  if (Object.isFrozen(protectedPaths)) compiledLists.set(protectedPaths, list);
  return list;
}

/**
 * {@linkcode protectedMatch} for the entries of one folder: `match(name)` is
 * `protectedMatch(folder === "" ? name : `${folder}/${name}`, protectedPaths)`, with the folder's
 * part normalized once instead of at every entry (the sandbox's walk matches every entry of each
 * folder it lists again, before every write and command).
 *
 * @param folder The folder, a normalized path relative to the workspace (`""` for the workspace).
 * @param protectedPaths The context's protected paths, relative to the workspace.
 * @returns The matcher of one entry's name: the matching protected path, or `undefined`.
 */
export function protectedChildMatch(
  folder: string,
  protectedPaths: readonly string[],
): (name: string) => string | undefined {
  const list = compiled(protectedPaths);
  const parents = folder === "" ? [] : folder.split("/").map(normalizeComponent);
  const prefix = folder === "" ? "" : `${parents.join("/")}/`;
  // A name protected at any depth that is one of the folder's own components matches every entry.
  const inFolder = list.map(({ anchored, name }) => !anchored && parents.includes(name));
  return (name) => {
    const own = normalizeComponent(name);
    const lower = prefix + own;
    for (let i = 0; i < list.length; i++) {
      const { path, anchored, name: protectedName } = list[i];
      if (anchored ? within(protectedName, lower) : inFolder[i] || own === protectedName) {
        return path;
      }
    }
    return undefined;
  };
}
