import { basename, join } from "@std/path";
import { normalizeComponent } from "../paths/protected_match.ts";
import { isGitDirectorySync } from "../paths/git_signature.ts";
import { identityOf, lstatOrUndefined } from "../paths/fs_probes.ts";

/** A git directory signature in a workspace. */
export interface GitSignatureFound {
  /** Relative to the workspace's real path; `""` for the workspace itself. */
  readonly rel: string;
  /** `dev:ino` of the folder (or `.git` file), when the platform has them. */
  readonly identity: string | undefined;
  /**
   * A folder, or a `.git` that is not one: a file naming one, or a symbolic link. Part of what a
   * baseline compares: a link the sandbox does not bind can be swapped for a folder that takes
   * its freed inode (ext4 reuses it at once), the same `dev:ino`.
   */
  readonly kind: "folder" | "file" | "link";
}

/**
 * The git directory signature at a path of a workspace, if it is one: a folder git takes for a
 * repository (`isGitDirectorySync`), or any other `.git`.
 *
 * @param real The workspace's real path.
 * @param rel The path, relative to it.
 * @param options `info`: its `lstat`, when the caller has just taken it (one look for the
 *   signature and the mount); default: taken here.
 * @returns The signature, or `undefined`.
 */
export function signatureOf(
  real: string,
  rel: string,
  options: { readonly info?: Deno.FileInfo } = {},
): GitSignatureFound | undefined {
  const info = "info" in options ? options.info : lstatOrUndefined(join(real, rel));
  if (info === undefined) return undefined;
  // Any `.git` (a repository, a file naming a gitdir, a symbolic link git follows, a folder that
  // is no repository but is walked no further, so it could hide one) is where git looks first.
  // Named first: it is a signature whatever it holds, so its HEAD and objects/ are not looked up
  // (two calls at every walk for each repository of the workspace).
  if (normalizeComponent(basename(rel)) === ".git") {
    const kind = info.isDirectory ? "folder" : info.isSymlink ? "link" : "file";
    return { rel, identity: identityOf(info), kind };
  }
  if (info.isDirectory && isGitDirectorySync(join(real, rel))) {
    return { rel, identity: identityOf(info), kind: "folder" };
  }
  return undefined;
}

// What git reads in a repository folder: bound read-only when the workspace itself is one.
const GIT_DIR_ENTRIES = new Set([
  "head",
  "objects",
  "refs",
  "commondir",
  "config",
  "config.worktree",
  "hooks",
  "info",
  "packed-refs",
  "worktrees",
  "modules",
  "branches",
  "gitdir",
]);

/**
 * Whether an entry of a repository folder is one git reads (`HEAD`, `config`, `hooks`, …, in
 * any case and with trailing dots and spaces, as protected paths are compared).
 *
 * @returns `true` for an entry git reads.
 */
export function isGitDirEntry(name: string): boolean {
  return GIT_DIR_ENTRIES.has(normalizeComponent(name));
}
