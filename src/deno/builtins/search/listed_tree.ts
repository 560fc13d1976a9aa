import type { TreeEntry, TreeView } from "./walk_tree.ts";

/** A tree listed in the sandbox: folders and files by folder, and the `.gitignore` texts. */
export class ListedTree implements TreeView {
  #dirs = new Map<string, TreeEntry[]>();
  readonly gitignores = new Map<string, string>();

  /**
   * Adds a listed folder or file.
   *
   * @param path Its path relative to the root.
   * @param kind Folder or regular file.
   */
  add(path: string, kind: "dir" | "file"): void {
    const slash = path.lastIndexOf("/");
    const dir = slash < 0 ? "" : path.slice(0, slash);
    let entries = this.#dirs.get(dir);
    if (entries === undefined) this.#dirs.set(dir, entries = []);
    entries.push({ name: path.slice(slash + 1), kind });
    if (kind === "dir" && !this.#dirs.has(path)) this.#dirs.set(path, []);
  }

  list(dir: string): Promise<readonly TreeEntry[] | undefined> {
    return Promise.resolve(this.#dirs.get(dir) ?? (dir === "" ? [] : undefined));
  }

  gitignore(dir: string): string | undefined {
    return this.gitignores.get(dir);
  }
}
