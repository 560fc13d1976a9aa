import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { FileEdit } from "./file_edit.ts";
import { splitText } from "./text_lines.ts";
import { quote } from "../paths/fs_tool_error.ts";
import { commit, type Target } from "../files/staged_commit.ts";
import { readCurrent } from "../files/current_text.ts";
import type { FileAccess } from "../files/file_access.ts";
import { resolveWritePath } from "../paths/workspace_paths.ts";
import { checkGitSignatures } from "../paths/git_signature.ts";
import { relative } from "@std/path";

/** A file as a patch plans it: text only. */
interface PatchTarget extends Target {
  content: string | null;
}

/** One file a patch changed. */
export interface FileChange {
  /** The path, relative to the workspace (the new path of a moved file). */
  path: string;
  /** What happened to the file. */
  operation: "add" | "update" | "delete" | "move";
  /** The old path of a moved file. */
  from?: string;
  /** Lines added. */
  linesAdded: number;
  /** Lines removed. */
  linesRemoved: number;
}

/** What `apply_patch` returns, JSON-encoded. */
export interface ApplyPatchResult {
  /** The number of file operations applied. */
  filesChanged: number;
  /** Each file operation, in patch order. */
  fileChanges: FileChange[];
}

/**
 * Applies file edits all or nothing: every path is resolved and checked, every edit is computed
 * in memory and every new content is staged in a temporary file before the first file on disk
 * changes; a failure while committing restores the files already changed.
 *
 * @param options The `edits`, in patch order, and a `signal` that stops the patch before it commits.
 * @returns What changed.
 */
export async function applyEdits(
  ctx: ResolvedContext,
  files: FileAccess,
  options: { edits: readonly FileEdit[]; signal: AbortSignal },
): Promise<ApplyPatchResult> {
  const { edits, signal } = options;
  const targets = new Map<string, PatchTarget>();
  const target = async (shown: string): Promise<PatchTarget> => {
    const path = resolveWritePath(ctx, shown);
    let found = targets.get(path.real);
    if (found === undefined) {
      const disk = await readCurrent(files, path, { shown });
      found = {
        path,
        onDisk: disk?.text ?? null,
        mode: disk?.mode,
        identity: disk?.identity,
        content: disk?.text ?? null,
      };
      targets.set(path.real, found);
    }
    return found;
  };
  const fileChanges: FileChange[] = [];
  for (const edit of edits) {
    const file = await target(edit.path);
    if (edit.kind === "add") {
      if (file.content !== null) {
        throw failed(edit.path, 'it already exists: use "*** Update File"');
      }
      file.content = edit.text;
      fileChanges.push(change(file, "add", edit.lines, 0));
    } else if (edit.kind === "delete") {
      if (file.content === null) throw failed(edit.path, "it does not exist");
      fileChanges.push(change(file, "delete", 0, splitText(file.content).lines.length));
      file.content = null;
    } else {
      if (file.content === null) throw failed(edit.path, "it does not exist");
      const result = edit.edit(file.content, edit.path);
      const destination = edit.moveTo === undefined ? file : await target(edit.moveTo);
      if (destination !== file) {
        if (destination.content !== null) {
          throw failed(edit.moveTo!, "the destination of the move exists");
        }
        file.content = null;
        destination.content = result.text;
        destination.mode ??= file.mode;
        fileChanges.push({
          ...change(destination, "move", result.linesAdded, result.linesRemoved),
          from: file.path.display,
        });
      } else {
        file.content = result.text;
        fileChanges.push(change(file, "update", result.linesAdded, result.linesRemoved));
      }
    }
  }
  const changed = [...targets.values()].filter((t) => t.content !== t.onDisk);
  // Each path was checked alone; the files the patch creates together must not make a git
  // directory either (`x/HEAD` and `x/objects/a` in one patch).
  checkGitSignatures(
    ctx.workspace,
    changed.filter((t) => t.onDisk === null && t.content !== null).map((t) => ({
      rel: relative(ctx.workspace, t.path.real),
      shown: t.path.display,
    })),
  );
  await commit(files, changed, { signal });
  return { filesChanged: fileChanges.length, fileChanges };
}

function change(
  file: PatchTarget,
  operation: FileChange["operation"],
  linesAdded: number,
  linesRemoved: number,
): FileChange {
  return { path: file.path.display, operation, linesAdded, linesRemoved };
}

function failed(path: string, problem: string): ToolError {
  return new ToolError(
    "tool_error",
    `Patch failed on ${quote(path)}: ${problem}. Nothing was changed`,
  );
}
