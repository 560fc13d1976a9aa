import { ToolError } from "../../../core/tool_error.ts";
import type { PolicySubjects } from "../../../core/tool_source.ts";
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

/**
 * What `apply_patch(...)` policy specifiers read: every path the patch adds, updates, deletes or
 * moves to, from the same parser that applies it (so a quoted or tab-suffixed unified header
 * names the path that is written). Throws, and the policy fails closed, when the patch does not
 * parse or `patch` is not a string.
 *
 * @returns The paths, as the patch names them.
 */
export function patchSubjects(args: Record<string, unknown>): PolicySubjects {
  if (typeof args.patch !== "string") throw new TypeError('"patch" must be a string');
  const paths = parsePatchText(args.patch).flatMap((edit) =>
    edit.kind === "update" && edit.moveTo !== undefined ? [edit.path, edit.moveTo] : [edit.path]
  );
  return { kind: "paths", paths };
}
