import { within } from "./allowed_roots.ts";

/**
 * Normalizes one path component the way a case-insensitive file system, or Windows, may treat it:
 * lower case, trailing dots and spaces removed (`.GIT.` and `.git ` name `.git` there).
 *
 * @param component One path component.
 * @returns The normalized component.
 */
export function normalizeComponent(component: string): string {
  const lower = component.toLowerCase();
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
  const components = rel.split("/").map(normalizeComponent);
  const lower = components.join("/");
  return protectedPaths.find((protectedPath) => {
    const anchored = protectedPath.startsWith("./") || protectedPath.includes("/");
    const name = protectedPath.replace(/^\.\//, "").split("/").map(normalizeComponent).join("/");
    return anchored ? within(name, lower) : components.includes(name);
  });
}
