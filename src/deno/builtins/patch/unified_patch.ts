import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { ToolError } from "../../../core/tool_error.ts";
import type { EditResult, FileEdit } from "./file_edit.ts";

const DEV_NULL = "/dev/null";

/**
 * Parses a unified diff (plain or from git, one or more files) into file edits, with npm
 * `diff`'s `parsePatch`. Each update applies with `applyPatch`, a fuzz factor of 2 and a
 * comparison that ignores trailing whitespace. Throws a `ToolError` (`invalid_arguments`) for
 * a patch without hunks or without file names.
 *
 * @param patch The diff text.
 * @returns The file edits, in order.
 */
export function parseUnifiedPatch(patch: string): FileEdit[] {
  let files: StructuredPatch[];
  try {
    files = parsePatch(patch.replace(/\r\n/g, "\n"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(`the diff cannot be parsed: ${reason}`);
  }
  const edits: FileEdit[] = [];
  for (const file of files) {
    if (file.hunks.length === 0) {
      if (file.oldFileName === undefined && file.newFileName === undefined) continue;
      throw invalid(
        `the diff of ${JSON.stringify(file.newFileName ?? file.oldFileName)} has no hunks`,
      );
    }
    const [oldName, newName] = fileNames(file);
    if (oldName === undefined && newName === undefined) {
      throw invalid('a file diff has no file names: start it with "--- a/path" and "+++ b/path"');
    }
    if (oldName === DEV_NULL || oldName === undefined) {
      const lines = added(file);
      edits.push({ kind: "add", path: newName!, text: lines.text, lines: lines.count });
    } else if (newName === DEV_NULL) {
      edits.push({ kind: "delete", path: oldName });
    } else {
      const moveTo = newName !== undefined && newName !== oldName ? newName : undefined;
      edits.push({
        kind: "update",
        path: oldName,
        moveTo,
        edit: (text, shown) => applyOne(text, file, shown),
      });
    }
  }
  if (edits.length === 0) throw invalid("the diff contains no hunks");
  return edits;
}

function applyOne(text: string, file: StructuredPatch, path: string): EditResult {
  const result = applyPatch(text, file, {
    fuzzFactor: 2,
    // `line` is undefined past the end of the file while the fuzzy search looks there.
    compareLine: (_number, line, _operation, patchContent) =>
      typeof line === "string" && line.trimEnd() === patchContent.trimEnd(),
  });
  if (result === false) {
    throw new ToolError(
      "tool_error",
      `Patch failed on ${JSON.stringify(path)}: ${
        describeMismatch(text, file)
      }. Nothing was changed; read the file again and copy the context lines exactly`,
    );
  }
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === "+") linesAdded++;
      else if (line[0] === "-") linesRemoved++;
    }
  }
  return { text: result, linesAdded, linesRemoved };
}

/** Names the first hunk whose lines are not in the file, and its first missing line. */
function describeMismatch(text: string, file: StructuredPatch): string {
  const lines = text.split(/\r?\n/).map((line) => line.trimEnd());
  const present = new Set(lines);
  for (const [n, hunk] of file.hunks.entries()) {
    const expected = hunk.lines.filter((line) => line[0] === " " || line[0] === "-");
    const missing = expected.find((line) => !present.has(line.slice(1).trimEnd()));
    if (missing !== undefined) {
      return `hunk ${n + 1} (@@ -${hunk.oldStart},${hunk.oldLines}) did not match: the line ${
        JSON.stringify(missing.slice(1, 121))
      } was not found`;
    }
  }
  return "the hunks' lines exist but not in the order or place the hunks give";
}

function added(file: StructuredPatch): { text: string; count: number } {
  const lines: string[] = [];
  let finalNewline = true;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === "+") lines.push(line.slice(1));
      else if (line.startsWith("\\")) finalNewline = false;
    }
  }
  const text = lines.length === 0 ? "" : lines.join("\n") + (finalNewline ? "\n" : "");
  return { text, count: lines.length };
}

/**
 * The old and new names of a file diff, without a tab-separated timestamp; git's `a/` and `b/`
 * are dropped when both names carry them (plain diffs name files as they are).
 */
// Without a tab-separated timestamp. Git names files `a/path` and `b/path` (both dropped when
// both names carry them); plain diffs name them as they are.
function fileNames(file: StructuredPatch): (string | undefined)[] {
  const names = [file.oldFileName, file.newFileName].map((name) =>
    name === undefined || name === "" ? undefined : name.trim().split("\t")[0]
  );
  const git = names.every((name, i) => name === DEV_NULL || name?.startsWith("ab"[i] + "/"));
  return names.map((name) => git && name !== DEV_NULL ? name?.slice(2) : name);
}

function invalid(problem: string): ToolError {
  return new ToolError("invalid_arguments", `Invalid patch: ${problem}. Nothing was changed`);
}
