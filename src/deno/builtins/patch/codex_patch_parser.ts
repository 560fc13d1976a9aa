import { ToolError } from "../../../core/tool_error.ts";
import { applyCodexChunks, type CodexChunk } from "./codex_chunks.ts";
import type { FileEdit } from "./file_edit.ts";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const UNIFIED_RANGE = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;

/**
 * Returns whether a patch text uses the Codex envelope (`*** Begin Patch`).
 *
 * @returns `true` for the Codex format.
 */
export function isCodexPatch(patch: string): boolean {
  return patch.trimStart().startsWith(BEGIN);
}

/**
 * Parses a patch in the Codex envelope format into file edits. Tolerates CRLF line endings
 * and blank lines around the envelope. Throws a `ToolError` (`invalid_arguments`) naming the
 * line that breaks the format.
 *
 * @param patch The patch text, from `*** Begin Patch` to `*** End Patch`.
 * @returns The file edits, in order.
 */
export function parseCodexPatch(patch: string): FileEdit[] {
  const lines = patch.split("\n").map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
  let first = 0;
  while (first < lines.length && lines[first].trim() === "") first++;
  let last = lines.length - 1;
  while (last >= first && lines[last].trim() === "") last--;
  if (lines[first]?.trim() !== BEGIN) {
    throw syntax(first + 1, `the patch must start with "${BEGIN}"`);
  }
  if (last <= first || lines[last].trim() !== END) {
    throw syntax(last + 1, `the patch must end with "${END}"`);
  }
  const edits: FileEdit[] = [];
  let at = first + 1;
  while (at < last) {
    const line = lines[at];
    if (line.startsWith(ADD)) {
      const path = pathOf(line, ADD, at);
      const content: string[] = [];
      at++;
      while (at < last && !lines[at].startsWith("*** ")) {
        if (!lines[at].startsWith("+")) {
          throw syntax(at + 1, 'every line of an added file must start with "+"');
        }
        content.push(lines[at].slice(1));
        at++;
      }
      const text = content.length === 0 ? "" : content.join("\n") + "\n";
      edits.push({ kind: "add", path, text, lines: content.length });
    } else if (line.startsWith(DELETE)) {
      edits.push({ kind: "delete", path: pathOf(line, DELETE, at) });
      at++;
    } else if (line.startsWith(UPDATE)) {
      const path = pathOf(line, UPDATE, at);
      at++;
      let moveTo: string | undefined;
      if (at < last && lines[at].startsWith(MOVE)) {
        moveTo = pathOf(lines[at], MOVE, at);
        at++;
      }
      const parsed = parseChunks(lines, at, last);
      at = parsed.next;
      if (parsed.chunks.length === 0 && moveTo === undefined) {
        throw syntax(at + 1, `"${UPDATE}${path}" has no hunks: add "@@" hunks with -/+ lines`);
      }
      const chunks = parsed.chunks;
      edits.push({
        kind: "update",
        path,
        moveTo,
        edit: (text, shown) => applyCodexChunks(text, chunks, { path: shown }),
      });
    } else if (line.trim() === "") {
      at++;
    } else {
      throw syntax(
        at + 1,
        `expected "${ADD}", "${UPDATE}" or "${DELETE}", found ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
  }
  if (edits.length === 0) throw syntax(first + 1, "the patch changes no file");
  return edits;
}

function parseChunks(
  lines: string[],
  from: number,
  end: number,
): { chunks: CodexChunk[]; next: number } {
  const chunks: CodexChunk[] = [];
  let chunk: CodexChunk | undefined;
  const open = (line: number, header?: string) => {
    chunk = { header, old: [], new: [], added: 0, removed: 0, eof: false, line };
    chunks.push(chunk);
    return chunk;
  };
  let at = from;
  for (; at < end; at++) {
    const line = lines[at];
    if (line.startsWith("*** ") && line !== END_OF_FILE) break;
    if (line === END_OF_FILE) {
      if (chunk === undefined) throw syntax(at + 1, `"${END_OF_FILE}" must follow a hunk`);
      chunk.eof = true;
      chunk = undefined;
      continue;
    }
    if (line.startsWith("@@")) {
      // Models sometimes write unified-diff ranges (`@@ -3,4 +3,5 @@ fn`): keep only the text.
      const header = line.slice(2).trim().replace(UNIFIED_RANGE, "").trim();
      open(at + 1, header === "" ? undefined : header);
      continue;
    }
    if (chunk === undefined) {
      if (chunks.length > 0) throw syntax(at + 1, 'a hunk must start with "@@"');
      chunk = open(at + 1);
    }
    const mark = line[0];
    const body = line.slice(1);
    if (line === "" || mark === " ") {
      chunk.old.push(body);
      chunk.new.push(body);
    } else if (mark === "-") {
      chunk.old.push(body);
      chunk.removed++;
    } else if (mark === "+") {
      chunk.new.push(body);
      chunk.added++;
    } else {
      throw syntax(
        at + 1,
        `a hunk line must start with " ", "-" or "+", found ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
  }
  return { chunks: chunks.filter((c) => c.old.length > 0 || c.new.length > 0), next: at };
}

function pathOf(line: string, prefix: string, at: number): string {
  const path = line.slice(prefix.length).trim();
  if (path === "") throw syntax(at + 1, `"${prefix.trim()}" needs a path`);
  return path;
}

function syntax(line: number, problem: string): ToolError {
  return new ToolError(
    "invalid_arguments",
    `Invalid patch at line ${line}: ${problem}. Nothing was changed`,
  );
}
