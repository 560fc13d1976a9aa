import { isToolOutput, type ToolOutput, toolOutput } from "../../../tool_output.ts";
import { isToolError, ToolError } from "../../../tool_error.ts";
import type { ToolContext, ToolLogEntry } from "../../../tool_source.ts";
import { MAX_REMOTE_DEPTH } from "../../remote_depth.ts";
import { mapBlockStrings, mapJsonStrings } from "../../../json_strings.ts";

// C0 controls except tab (U+0009) and newline (U+000A), DEL and the C1 controls, and the bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
const UNSAFE_ONE = new RegExp(UNSAFE.source);

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
 * Escapes the text of a remote tool result: a string; or every string of a result object's
 * content blocks (a text block's `text`, an embedded resource's `text` and `uri`, a resource
 * link's `name`, `title` and `description`, annotations and `_meta`: every field, names included,
 * at any depth), and of its `structuredContent`. Base64 payloads (an image's or audio's `data`, a
 * resource's `blob`) are bytes and stay as they are. Other values pass unchanged.
 *
 * Throws a `ToolError` (`tool_error`) for a result nested deeper than {@linkcode MAX_REMOTE_DEPTH}
 * levels: it is withheld rather than passed on with its deeper text unescaped.
 *
 * @param result The result of a remote call.
 * @returns The result with its text escaped (the same object when nothing needed escaping).
 */
export function escapeRemoteResult<T>(result: T): T {
  if (typeof result === "string") return escapeUnsafeChars(result) as T;
  if (result === null || typeof result !== "object") return result;
  const { content, structuredContent } = result as {
    content?: unknown;
    structuredContent?: unknown;
  };
  let blocks: unknown[] | undefined;
  if (Array.isArray(content)) {
    for (let i = 0; i < content.length; i++) {
      const escaped = mapBlockStrings(content[i], ESCAPE);
      if (escaped === content[i]) continue;
      blocks ??= [...content];
      blocks[i] = escaped;
    }
  }
  const structured = mapJsonStrings(structuredContent, ESCAPE);
  // Nearly every result has nothing to escape: it is passed on as it is, not copied.
  if (blocks === undefined && structured === structuredContent) return result;
  const escaped = {
    ...result,
    ...(blocks === undefined ? {} : { content: blocks }),
    ...(structured === structuredContent ? {} : { structuredContent: structured }),
  };
  // A tool output's mark is not copied by a spread: mark the escaped copy again.
  return (isToolOutput(result) ? toolOutput(escaped as unknown as ToolOutput) : escaped) as T;
}

const ESCAPE = {
  map: (text: string) => hasUnsafeChars(text) ? escapeUnsafeChars(text) : text,
  max: MAX_REMOTE_DEPTH,
  tooDeep: () => {
    throw new ToolError(
      "tool_error",
      `The server's result was withheld: it is nested deeper than ${MAX_REMOTE_DEPTH} levels, too deep to be checked for control characters`,
    );
  },
};

/**
 * Escapes what a remote call brings back to the model: the result's text, and the message of an
 * error (a remote error result or message becomes a `ToolError` with its text escaped; the code
 * stays).
 *
 * @param pending The remote call's result.
 */
export function escapedResult<T>(pending: Promise<T>): Promise<T> {
  // One reaction on the call's promise, no async frame or closure of its own (every call).
  return pending.then(escapeRemoteResult, rethrowEscaped);
}

function rethrowEscaped(error: unknown): never {
  if (isToolError(error)) {
    throw new ToolError(error.code, escapeUnsafeChars(error.message), {
      cause: error,
      retryAfterMs: error.retryAfterMs,
    });
  }
  if (error instanceof Error) error.message = escapeUnsafeChars(error.message);
  throw error;
}

/** Most questions one remote call may put to the person; past it they are cancelled unasked. */
export const MAX_ELICITATIONS_PER_CALL = 10;

/**
 * The call's context with what the remote server sends the person escaped: progress messages,
 * log messages (every string, the logger's name too), and elicitation questions (the message escaped and cut to `maxChars`, every string of the
 * schema escaped). A server asks at most {@linkcode MAX_ELICITATIONS_PER_CALL} questions per call
 * (in the 2026-07-28 era one `input_required` round may carry many, and a call has up to ten
 * rounds): the rest are cancelled without reaching the person.
 *
 * @param context The call's context.
 * @param maxChars Most characters of an elicitation message.
 * @returns A context whose `onProgress`, `log` and `elicit` see escaped, bounded text.
 */
export function escapedContext(context: ToolContext, maxChars: number): ToolContext {
  const { onProgress, elicit, log } = context;
  if (onProgress === undefined && elicit === undefined && log === undefined) return context;
  let asked = 0;
  return {
    ...context,
    ...(onProgress === undefined ? {} : {
      onProgress: (progress) =>
        onProgress(
          progress.message === undefined
            ? progress
            : { ...progress, message: escapeUnsafeChars(progress.message) },
        ),
    }),
    ...(log === undefined ? {} : {
      log: (entry) => {
        let escaped: ToolLogEntry;
        try {
          escaped = mapJsonStrings(entry, ESCAPE) as ToolLogEntry;
        } catch {
          return; // nested too deep to check: not passed on
        }
        log(escaped);
      },
    }),
    ...(elicit === undefined ? {} : {
      elicit: (request, signal) => {
        if (++asked > MAX_ELICITATIONS_PER_CALL) return Promise.resolve({ action: "cancel" });
        return elicit({
          ...request,
          message: safeRemoteText(String(request.message), maxChars),
          requestedSchema: mapJsonStrings(request.requestedSchema, ESCAPE) as Record<
            string,
            unknown
          >,
        }, signal);
      },
    }),
  };
}
