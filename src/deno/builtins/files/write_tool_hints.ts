import { quote } from "../paths/fs_tool_error.ts";

/** The MCP hints of a built-in tool that writes workspace files. */
export const WRITE_ANNOTATIONS = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
});

// A description names at most this many protected paths (serve can protect thousands).
const LISTED_PROTECTED = 8;

/**
 * The protected paths as a write tool's description names them: the first few, then how many
 * more.
 *
 * @param paths The context's protected paths.
 * @returns The text, `nothing` for none.
 */
export function protectedList(paths: readonly string[]): string {
  if (paths.length === 0) return "nothing";
  const shown = paths.slice(0, LISTED_PROTECTED).map((p) => quote(p)).join(", ");
  const more = paths.length - LISTED_PROTECTED;
  return more > 0 ? `${shown} and ${more} more protected paths` : shown;
}
