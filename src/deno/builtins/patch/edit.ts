import { z } from "zod";
import { isToolError, ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote } from "../paths/fs_tool_error.ts";
import type { EditResult } from "./file_edit.ts";
import { applyEdits } from "./patch_transaction.ts";
import type { FileAccess } from "../files/file_access.ts";
import { MAX_EDIT_BYTES } from "../files/current_text.ts";
import { pathSubjects } from "../paths/path_subjects.ts";
import { countOf } from "./text_lines.ts";
import { protectedList, WRITE_ANNOTATIONS } from "../files/write_tool_hints.ts";

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
 * @param files How the context reaches files: on the host, or in its sandbox session.
 */
export function createEditTool(ctx: ResolvedContext, files: FileAccess): RoutedTool {
  return Object.freeze({
    name: "edit",
    description: "Replaces exact text in a file of the workspace, atomically. oldString must " +
      "occur exactly once (include surrounding lines to make it unique) unless replaceAll is " +
      "true; whitespace and indentation must match. Read the file first. Paths are relative to " +
      `the workspace; ${
        protectedList(ctx.protectedPaths)
      } cannot be written. Returns JSON { path, replacements }.`,
    inputSchema: input.jsonSchema,
    annotations: WRITE_ANNOTATIONS,
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
    const result = replaceIn(text, args, { path });
    replacements = result.replacements;
    return result;
  };
  try {
    const done = await applyEdits(ctx, files, {
      edits: [{ kind: "update", path: args.path, edit: change }],
      signal,
    });
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
 * @param args The strings and `replaceAll`.
 * @param options The `path` as the model gave it, for messages.
 * @returns The new text, the lines changed, and the number of replacements.
 */
export function replaceIn(
  text: string,
  args: { oldString: string; newString: string; replaceAll?: boolean },
  options: { path: string },
): EditResult & { replacements: number } {
  const { path } = options;
  let { oldString, newString } = args;
  let count = countOf(text, oldString);
  if (count === 0 && text.includes("\r\n") && /(?<!\r)\n/.test(oldString)) {
    // A file with Windows line endings, a string written with "\n": match it with "\r\n".
    oldString = oldString.replace(/\r?\n/g, "\r\n");
    newString = newString.replace(/\r?\n/g, "\r\n");
    count = countOf(text, oldString);
  }
  const failed = (code: "tool_error" | "invalid_arguments", problem: string) =>
    new ToolError(code, `Edit failed on ${quote(path)}: ${problem}. Nothing was changed`);
  if (count === 0) {
    throw failed(
      "tool_error",
      '"oldString" was not found (found 0 occurrences); read the file and copy the text exactly, including whitespace and indentation',
    );
  }
  if (count > 1 && args.replaceAll !== true) {
    throw failed(
      "tool_error",
      `"oldString" is not unique: found ${count} occurrences; pass replaceAll or include more context`,
    );
  }
  // The result's size is known before it is built: a short newString times many occurrences
  // must not make the host build a string of hundreds of MiB (the input's bound, for the output).
  const size = editedSize(text, { count, oldString, newString });
  if (size > MAX_EDIT_BYTES) {
    throw failed(
      "invalid_arguments",
      `the result would be ${size} bytes (${count} replacements), over the ${MAX_EDIT_BYTES}-byte limit of files a patch edits; replace fewer occurrences or use bash`,
    );
  }
  const replaced = countOf(oldString, "\n") + 1;
  const added = countOf(newString, "\n") + 1;
  return {
    // A function as the replacement: "$&" and friends in newString stay literal.
    text: text.replaceAll(oldString, () => newString),
    linesAdded: added * count,
    linesRemoved: replaced * count,
    replacements: count,
  };
}

/**
 * The UTF-8 size of a text after `count` occurrences of `oldString` are replaced with
 * `newString`, computed without building it: what `edit` checks before it builds the result.
 *
 * @param change The number of occurrences and the two strings.
 * @returns The size in bytes.
 */
export function editedSize(
  text: string,
  change: { count: number; oldString: string; newString: string },
): number {
  const { count, oldString, newString } = change;
  return utf8Length(text) + count * (utf8Length(newString) - utf8Length(oldString));
}

// Counted without encoding: the text may be the whole 16 MiB file.
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
