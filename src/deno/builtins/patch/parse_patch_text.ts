import { ToolError } from "../../../core/tool_error.ts";
import { isCodexPatch, parseCodexPatch } from "./codex_patch_parser.ts";
import type { FileEdit } from "./file_edit.ts";
import { parseUnifiedPatch } from "./unified_patch.ts";

/**
 * Parses patch text in either supported format into file edits. Throws a `ToolError`
 * (`invalid_arguments`) for text that is neither.
 *
 * @returns The file edits.
 */
export function parsePatchText(patch: string): FileEdit[] {
  if (isCodexPatch(patch)) return parseCodexPatch(patch);
  if (/^(---|\+\+\+|@@|diff --git|Index:)/m.test(patch)) return parseUnifiedPatch(patch);
  throw new ToolError(
    "invalid_arguments",
    'Invalid patch: it is neither the Codex format (starting with "*** Begin Patch") nor a unified diff (with "---", "+++" and "@@" lines). Nothing was changed',
  );
}
