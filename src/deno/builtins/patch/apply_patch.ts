import { z } from "zod";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { FileAccess } from "../files/file_access.ts";
import { applyEdits, type ApplyPatchResult } from "./patch_transaction.ts";
import { parsePatchText, patchSubjects } from "./parse_patch_text.ts";
import { WRITE_ANNOTATIONS } from "../files/write_tool_hints.ts";

const schema = z.object({
  patch: z.string().describe(
    'The patch: the Codex format ("*** Begin Patch" … "*** End Patch") or a unified diff',
  ),
});
type ApplyPatchArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "apply_patch");

const DESCRIPTION =
  `Edits files in the workspace with a patch, all or nothing: if any part fails, no file changes.
Format (paths relative to the workspace):
*** Begin Patch
*** Add File: path/new.txt
+each line of the new file starts with +
*** Update File: path/old.ts
*** Move to: path/renamed.ts   (optional)
@@ optional line to find first, such as a function signature
 context line (starts with a space)
-line to remove
+line to add
*** Delete File: path/unused.ts
*** End Patch
Give about 3 lines of context around each change. A unified diff (--- a/x, +++ b/x, @@ -1,2 +1,2 @@) also works.
Returns JSON { filesChanged, fileChanges: [{ path, operation, linesAdded, linesRemoved }] }.`;

/**
 * Creates the `apply_patch` tool bound to one context: applies a patch in the Codex envelope
 * format or a unified / git diff to files inside the workspace, all or nothing.
 *
 * Requires `allow-read` and `allow-write` permission for the workspace.
 *
 * @tags allow-read, allow-write
 */
export function createApplyPatchTool(ctx: ResolvedContext, files: FileAccess): RoutedTool {
  return Object.freeze({
    name: "apply_patch",
    description: DESCRIPTION,
    inputSchema: input.jsonSchema,
    annotations: WRITE_ANNOTATIONS,
    source: "builtin" as const,
    origin: "apply_patch",
    policySubjects: patchSubjects,
    execute: (args: Record<string, unknown>, context: ToolContext): Promise<ApplyPatchResult> => {
      const { patch } = input.parse(args, "apply_patch") as ApplyPatchArgs;
      return applyEdits(ctx, files, { edits: parsePatchText(patch), signal: context.signal });
    },
  });
}
