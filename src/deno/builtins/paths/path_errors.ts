import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote } from "./fs_tool_error.ts";

/**
 * Checks a path argument: a non-empty string without NUL bytes, not starting with `~`. Throws a
 * `ToolError` (`invalid_arguments`) otherwise.
 *
 * @param path The argument.
 * @returns The path.
 */
export function checkPathInput(path: unknown): string {
  if (typeof path !== "string" || path.length === 0) {
    throw new ToolError(
      "invalid_arguments",
      '"path" must be a non-empty string, such as "src/main.ts"',
    );
  }
  if (path.includes("\0")) {
    throw new ToolError("invalid_arguments", '"path" must not contain NUL bytes');
  }
  if (path.startsWith("~")) {
    throw new ToolError(
      "invalid_arguments",
      `Path ${
        quote(path)
      } starts with "~", which is not expanded: give a path relative to the workspace`,
    );
  }
  return path;
}

/**
 * The error for a path outside the allowed roots; it never names where a symlink leads.
 *
 * @param what What was refused: reads, writes, or running commands in a directory.
 * @param options Whether the path leaves only after following symlinks (`viaLink`), and the context (`ctx`), to say whether read-only roots exist.
 * @returns The `permission_denied` error.
 */
export function outsideError(
  shown: string,
  what: "reads" | "writes" | "commands",
  options: { viaLink?: boolean; ctx?: ResolvedContext } = {},
): ToolError {
  const { viaLink = false, ctx } = options;
  const allowed = what === "reads" && (ctx?.readOnlyRoots.length ?? 0) > 0
    ? "the workspace and the read-only roots"
    : "the workspace";
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} ${
      viaLink ? "resolves (through a symbolic link) " : "is "
    }outside allowed roots: ${what} are allowed only inside ${allowed}; give a path relative to the workspace`,
  );
}

/**
 * The error for a write to a read-only root.
 *
 * @returns The `permission_denied` error.
 */
export function readOnlyError(shown: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: writes are allowed only inside the workspace`,
  );
}

/**
 * The error for a write to a protected path.
 *
 * @param protectedPath The protected path it falls under.
 * @returns The `permission_denied` error.
 */
export function protectedError(shown: string, protectedPath: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: ${
      quote(protectedPath)
    } is protected from writes in this workspace`,
  );
}
