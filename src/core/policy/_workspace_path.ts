/**
 * Resolves a path against a workspace lexically (no file system): `.` and `..` removed, POSIX
 * separators. A relative path without a workspace stays relative to an imaginary root `/`. Path
 * globs are made absolute the same way (their wildcards stay).
 *
 * @param path The path as a model or a rule wrote it.
 * @param workspace The absolute workspace, when known.
 * @returns The absolute, normalised path.
 */
export function resolveWorkspacePath(path: string, workspace: string | undefined): string {
  const slashed = path.replaceAll("\\", "/");
  const joined = slashed.startsWith("/") ? slashed : `${workspace ?? ""}/${slashed}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return "/" + parts.join("/");
}
