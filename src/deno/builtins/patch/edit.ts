import { z } from "zod";
import { isToolError, ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/zod_input.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote } from "../paths/fs_tool_error.ts";
import type { EditResult } from "./file_edit.ts";
import { applyEdits } from "./patch_transaction.ts";
import type { FileAccess } from "../files/file_access.ts";
import { pathSubjects } from "../paths/path_subjects.ts";

const schema = z.object({
  path: z.string().describe("The file, relative to the workspace"),
  oldString: z.string().describe("The exact text to replace, with enough context to be unique"),
  newString: z.string().describe("The text to put in its place"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence (default: exactly one)"),
});
type EditArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "edit");

/** What `edit` returns, JSON-encoded. */
export interface EditFileResult {
  /** The path, relative to the workspace. */
  path: string;
  /** The number of occurrences replaced. */
  replacements: number;
}

/**
 * Creates the `edit` tool bound to one context: replaces an exact string in a text file of the
 * workspace, once (it must occur exactly once) or everywhere with `replaceAll`. The file is read
 * and written like `apply_patch` does it (checked paths, protected paths refused, a temporary
 * file renamed over it, inside the sandbox when bash is sandboxed). A file with Windows line
 * endings matches `oldString` written with `\n`.
 *
 * Requires `allow-read` and `allow-write` permission for the workspace.
 *
 * @tags allow-read, allow-write
 * @param ctx The resolved context.
 * @param files How the context reaches files: on the host, or in its sandbox session.
 * @returns The tool.
 */
export function createEditTool(ctx: ResolvedContext, files: FileAccess): RoutedTool {
  return Object.freeze({
    name: "edit",
    description: "Replaces exact text in a file of the workspace, atomically. oldString must " +
      "occur exactly once (include surrounding lines to make it unique) unless replaceAll is " +
      "true; whitespace and indentation must match. Read the file first. Paths are relative to " +
      `the workspace; ${
        ctx.protectedPaths.map((p) => quote(p)).join(", ") || "nothing"
      } cannot be written. Returns JSON { path, replacements }.`,
    inputSchema: input.jsonSchema,
    annotations: Object.freeze({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    }),
    source: "builtin" as const,
    origin: "edit",
    policySubjects: pathSubjects,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      edit(ctx, { files, args: input.parse(args, "edit") as EditArgs, signal: context.signal }),
  });
}

async function edit(
  ctx: ResolvedContext,
  call: { files: FileAccess; args: EditArgs; signal: AbortSignal },
): Promise<EditFileResult> {
  const { files, args, signal } = call;
  if (args.oldString.length === 0) {
    throw new ToolError(
      "invalid_arguments",
      '"oldString" must not be empty: to create a file or replace all of it use write_file',
    );
  }
  if (args.oldString === args.newString) {
    throw new ToolError(
      "invalid_arguments",
      '"oldString" and "newString" are the same: nothing would change',
    );
  }
  let replacements = 0;
  const change = (text: string, path: string): EditResult => {
    const result = replaceIn(text, args, path);
    replacements = result.replacements;
    return result;
  };
  try {
    const done = await applyEdits(
      ctx,
      files,
      [{ kind: "update", path: args.path, edit: change }],
      signal,
    );
    return { path: done.fileChanges[0].path, replacements };
  } catch (error) {
    // The shared read and commit steps word their failures for a patch.
    if (isToolError(error) && error.message.startsWith("Patch failed on ")) {
      throw new ToolError(error.code, `Edit failed on ${error.message.slice(16)}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Replaces `oldString` in a text as `edit` does; throws a `ToolError` when it occurs not at all,
 * or more than once without `replaceAll`, saying how many times it occurs.
 *
 * @param text The file's text.
 * @param args The strings and `replaceAll`.
 * @param path The path as the model gave it, for messages.
 * @returns The new text, the lines changed, and the number of replacements.
 */
export function replaceIn(
  text: string,
  args: { oldString: string; newString: string; replaceAll?: boolean },
  path: string,
): EditResult & { replacements: number } {
  let { oldString, newString } = args;
  let parts = text.split(oldString);
  if (parts.length === 1 && text.includes("\r\n") && /(?<!\r)\n/.test(oldString)) {
    // A file with Windows line endings, a string written with "\n": match it with "\r\n".
    oldString = oldString.replace(/\r?\n/g, "\r\n");
    newString = newString.replace(/\r?\n/g, "\r\n");
    parts = text.split(oldString);
  }
  const count = parts.length - 1;
  if (count === 0) {
    throw new ToolError(
      "tool_error",
      `Edit failed on ${
        quote(path)
      }: "oldString" was not found (found 0 occurrences); read the file and copy the text exactly, including whitespace and indentation. Nothing was changed`,
    );
  }
  if (count > 1 && args.replaceAll !== true) {
    throw new ToolError(
      "tool_error",
      `Edit failed on ${
        quote(path)
      }: "oldString" is not unique: found ${count} occurrences; pass replaceAll or include more context. Nothing was changed`,
    );
  }
  const lines = (s: string) => s.split("\n").length - 1;
  const replaced = lines(oldString) + 1;
  const added = lines(newString) + 1;
  return {
    text: parts.join(newString),
    linesAdded: added * count,
    linesRemoved: replaced * count,
    replacements: count,
  };
}
