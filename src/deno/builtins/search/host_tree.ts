import { ENTRIES_PER_TICK } from "./search_budget.ts";
import type { TreeEntry, TreeView } from "./walk_tree.ts";

/** The largest `.gitignore` file read (1 MiB); a larger one is ignored. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * The host's file system under one root, a folder at a time as the walk goes. A folder is read
 * with `Deno.readDir`, off the event loop: `Deno.readDirSync` of one folder of hundreds of
 * thousands of files (a model's command makes one in seconds) held the loop for the whole read,
 * and nothing tells such a folder from its name (the walk reads a few folders ahead, so reading
 * off the loop costs little). Entry kinds come from the folder listing without following
 * symbolic links. A folder that cannot be read (gone, or refused by the operating system or Deno)
 * is skipped.
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

  async list(dir: string, pause: () => Promise<void>): Promise<TreeEntry[] | undefined> {
    let listing: AsyncIterator<Deno.DirEntry>;
    try {
      listing = Deno.readDir(this.pathOf(dir))[Symbol.asyncIterator]();
    } catch {
      return undefined;
    }
    // A read that fails skips the folder; the budget's errors (deadline, abort) end the search.
    const read = () => listing.next().catch(() => undefined);
    const list: TreeEntry[] = [];
    let gitignore = false;
    try {
      for (let next = await read(); next?.done !== true; next = await read()) {
        if (next === undefined) return undefined;
        // The listing arrives whole; going through it is work on the loop like any other.
        if (list.length % ENTRIES_PER_TICK === ENTRIES_PER_TICK - 1) await pause();
        const entry = next.value;
        const kind = entry.isSymlink
          ? "other"
          : entry.isDirectory
          ? "dir"
          : entry.isFile
          ? "file"
          : "other";
        if (kind === "file" && entry.name === ".gitignore") gitignore = true;
        list.push({ name: entry.name, kind });
      }
    } finally {
      // A listing left before its end (the search's deadline, an abort, a walk that stopped)
      // holds its folder open until closed: never closed, each was a descriptor `serve` lost for
      // good (no garbage collection closes it), and cancelled searches ran it out of them.
      listing.return?.().catch(() => {});
    }
    this.#listed.add(dir);
    if (gitignore) this.#gitignores.add(dir);
    return list;
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
