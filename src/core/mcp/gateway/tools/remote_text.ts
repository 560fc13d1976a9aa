import { isToolOutput, type ToolOutput, toolOutput } from "../../../tool_output.ts";
import { isToolError, ToolError } from "../../../tool_error.ts";
import type { ToolContext } from "../../../tool_source.ts";

// C0 controls except tab (U+0009) and newline (U+000A), DEL and the C1 controls, and the bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
// deno-lint-ignore no-control-regex
const UNSAFE_ONE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/**
 * Shows control and bidi characters of remote text escaped (`\u001B`, `\u202E`), so a remote
 * server cannot hide text from a human reader, reorder it, or send terminal escapes to a model
 * or a log. Newline and tab stay.
 *
 * @param text Remote text.
 * @returns The text with those characters escaped.
 */
export function escapeUnsafeChars(text: string): string {
  return text.replace(
    UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

/**
 * Whether text holds a character {@linkcode escapeUnsafeChars} escapes.
 *
 * @param text The text.
 * @returns `true` when it does.
 */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE_ONE.test(text);
}

/**
 * Escapes remote text, then cuts it to `max` characters with a visible marker saying how long it
 * was.
 *
 * @param text Remote text.
 * @param max Most characters kept before the marker.
 * @returns The safe, bounded text.
 */
export function safeRemoteText(text: string, max: number): string {
  const escaped = escapeUnsafeChars(text);
  if (escaped.length <= max) return escaped;
  return `${
    escaped.slice(0, max)
  } […truncated by toolroute: ${escaped.length} characters, first ${max} shown]`;
}

/**
 * Escapes the text of a remote tool result: a string, or the `text` of each content block of a
 * result object. Other values pass unchanged.
 *
 * @param result The result of a remote call.
 * @returns The result with its text escaped.
 */
export function escapeRemoteResult<T>(result: T): T {
  if (typeof result === "string") return escapeUnsafeChars(result) as T;
  if (result === null || typeof result !== "object") return result;
  const content = (result as { content?: unknown }).content;
  // Nearly every result has nothing to escape: it is passed on as it is, not copied.
  if (!Array.isArray(content) || !content.some(hasUnsafeText)) return result;
  const escaped = {
    ...result,
    content: content.map((block) =>
      hasUnsafeText(block) ? { ...block, text: escapeUnsafeChars(block.text) } : block
    ),
  };
  // A tool output's mark is not copied by a spread: mark the escaped copy again.
  return (isToolOutput(result) ? toolOutput(escaped as unknown as ToolOutput) : escaped) as T;
}

function hasUnsafeText(block: unknown): block is { text: string } {
  if (block === null || typeof block !== "object") return false;
  const text = (block as { text?: unknown }).text;
  return typeof text === "string" && UNSAFE_ONE.test(text);
}

/**
 * Escapes what a remote call brings back to the model: the result's text, and the message of an
 * error (a remote error result or message becomes a `ToolError` with its text escaped; the code
 * stays).
 *
 * @param pending The remote call's result.
 * @returns The escaped result.
 */
export function escapedResult<T>(pending: Promise<T>): Promise<T> {
  // One reaction on the call's promise, no async frame or closure of its own (every call).
  return pending.then(escapeRemoteResult, rethrowEscaped);
}

function rethrowEscaped(error: unknown): never {
  throw escapedError(error);
}

function escapedError(error: unknown): unknown {
  if (isToolError(error)) {
    return new ToolError(error.code, escapeUnsafeChars(error.message), { cause: error });
  }
  if (error instanceof Error) error.message = escapeUnsafeChars(error.message);
  return error;
}

/**
 * The call's context with the remote server's progress messages escaped.
 *
 * @param context The call's context.
 * @returns A context whose `onProgress` sees escaped messages.
 */
export function escapedProgress(context: ToolContext): ToolContext {
  const onProgress = context.onProgress;
  if (onProgress === undefined) return context;
  return {
    ...context,
    onProgress: (progress) =>
      onProgress(
        progress.message === undefined
          ? progress
          : { ...progress, message: escapeUnsafeChars(progress.message) },
      ),
  };
}
