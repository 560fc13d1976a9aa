/**
 * Resolves a path against a workspace lexically (no file system): `.` and `..` removed, POSIX
 * separators. A relative path without a workspace stays relative to an imaginary root `/`.
 *
 * @param path The path as a model or a rule wrote it.
 * @param workspace The absolute workspace, when known.
 * @param options `backslash`: `"separator"` (default) or `"literal"` (a character of a name).
 * @returns The absolute, normalised path.
 */
export function resolveWorkspacePath(
  path: string,
  workspace: string | undefined,
  options: { backslash?: "separator" | "literal" } = {},
): string {
  const slashed = options.backslash === "literal" ? path : path.replaceAll("\\", "/");
  const joined = slashed.startsWith("/") ? slashed : `${workspace ?? ""}/${slashed}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return "/" + parts.join("/");
}

/**
 * The paths an `apply_patch` patch touches: Codex `*** Add/Update/Delete File:` and `*** Move to:`
 * headers, and unified `---`/`+++` headers (without `a/`/`b/` prefixes, `/dev/null` skipped).
 *
 * @param patch The patch text.
 * @returns The paths, as written.
 */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const codex = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (codex) {
      paths.push(codex[1].trim());
      continue;
    }
    const unified = /^(?:---|\+\+\+) (.+?)(?:\t.*)?$/.exec(line);
    if (unified) {
      const path = unified[1].trim();
      if (path === "/dev/null") continue;
      paths.push(/^[ab]\//.test(path) ? path.slice(2) : path);
    }
  }
  return paths;
}
