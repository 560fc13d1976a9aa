import { isToolError, ToolError } from "../../../core/tool_error.ts";

/** What a file-system operation was doing when it failed, for the error message. */
export interface FsOperation {
  /** The kind of access: decides the Deno flag named in the hint. */
  readonly access: "read" | "write";
  /** The path as the model gave it (never a resolved path outside the roots). */
  readonly shown: string;
  /** The allowed root the path belongs to: the value of the flag to add. */
  readonly root: string;
}

/**
 * Converts a failure of a file-system call into a {@linkcode ToolError} for the model.
 *
 * `Deno.errors.NotCapable` (Deno's sandbox refused) and `Deno.errors.PermissionDenied` (the
 * operating system refused) both become `permission_denied`, worded so that the host knows which
 * one said no; other failures become `tool_error` with the operating system's reason but
 * without the resolved path.
 *
 * @param error What the call threw.
 * @param operation What was being done.
 * @returns The tool error to throw.
 */
export function toFsToolError(error: unknown, operation: FsOperation): ToolError {
  if (isToolError(error)) return error;
  const { access, shown, root } = operation;
  const quoted = quote(shown);
  const denied = error instanceof Deno.errors.NotCapable
    ? `The sandbox denied ${access} access to ${quoted}: the host must run Deno with --allow-${access}=${root}`
    : error instanceof Deno.errors.PermissionDenied
    ? `The operating system denied ${access} access to ${quoted}: its file permissions do not allow it`
    : undefined;
  if (denied !== undefined) return new ToolError("permission_denied", denied, { cause: error });
  const message = error instanceof Deno.errors.NotFound
    ? `File ${quoted} does not exist`
    : `Cannot ${access} ${quoted}: ${
      error instanceof Deno.errors.NotADirectory
        ? "a parent of it is a file, not a directory"
        : error instanceof Deno.errors.IsADirectory
        ? "it is a directory"
        : osReason(error)
    }`;
  return new ToolError("tool_error", message, { cause: error });
}

/**
 * Quotes a path the model gave, shortened so that a huge argument is not echoed in full.
 *
 * @param path The path as given.
 * @returns The path in double quotes, at most about 200 characters.
 */
export function quote(path: string): string {
  const shown = path.length > 200 ? `${path.slice(0, 100)}…${path.slice(-100)}` : path;
  return JSON.stringify(shown);
}

/** The operating system's reason without the path Deno appends (`...: open '/x'`). */
function osReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const reason = error.message.replace(/:\s[\s\S]*$/, "").trim();
  return reason.length > 0 ? reason : error.name;
}
