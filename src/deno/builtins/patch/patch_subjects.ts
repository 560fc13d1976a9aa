import type { PolicySubjects } from "../../../core/tool_source.ts";
import { parsePatchText } from "./parse_patch_text.ts";

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
