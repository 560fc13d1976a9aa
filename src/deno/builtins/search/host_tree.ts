import type { TreeEntry, TreeView } from "./walk_tree.ts";

/** The largest `.gitignore` file read (1 MiB); a larger one is ignored. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * The host's file system under one root, read synchronously (a folder at a time, several times
 * faster than `Deno.readDir` or `@std/fs`'s `walk` on trees of thousands of folders). Entry
 * kinds come from the folder listing without following symbolic links. A folder that cannot be
 * read (gone, or refused by the operating system or Deno) is skipped.
 *
 * Requires `allow-read` permission for the root.
 *
 * @tags allow-read
 */
export class HostTree implements TreeView {
  readonly #root: string;
  #gitignores = new Set<string>();
  #listed = new Set<string>();

  /**
   * @param root The root's path on the host (the declared root, so Deno's flags cover it).
   */
  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The path on the host of a path relative to the root.
   *
   * @param path The relative path ("" for the root).
   * @returns The host path.
   */
  pathOf(path: string): string {
    return path === "" ? this.#root : `${this.#root}/${path}`;
  }

  list(dir: string): readonly TreeEntry[] | undefined {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(this.pathOf(dir))];
    } catch {
      return undefined;
    }
    this.#listed.add(dir);
    const list: TreeEntry[] = [];
    for (const entry of entries) {
      const kind = entry.isSymlink
        ? "other"
        : entry.isDirectory
        ? "dir"
        : entry.isFile
        ? "file"
        : "other";
      if (kind === "file" && entry.name === ".gitignore") this.#gitignores.add(dir);
      list.push({ name: entry.name, kind });
    }
    return list.sort(byName);
  }

  gitignore(dir: string): string | undefined {
    // A listed folder says whether it has one; a parent above the start folder was not listed.
    if (this.#listed.has(dir) && !this.#gitignores.has(dir)) return undefined;
    const path = `${this.pathOf(dir)}/.gitignore`;
    try {
      const info = Deno.lstatSync(path);
      if (!info.isFile || info.size > MAX_GITIGNORE_BYTES) return undefined;
      return Deno.readTextFileSync(path);
    } catch {
      return undefined;
    }
  }
}

/**
 * Orders entries by the code points of their names (not by locale).
 *
 * @param a One entry.
 * @param b Another.
 * @returns Their order.
 */
export function byName(a: TreeEntry, b: TreeEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
