import type { ResolvedContext } from "./builtin_context.ts";
import type { FileAccess } from "./files/file_access.ts";
import { hostFileAccess } from "./files/host_file_access.ts";
import { sessionFileAccess } from "./sandbox/session_file_access.ts";
import type { SandboxSessions } from "./sandbox/sandbox_sessions.ts";

/**
 * Chooses, once per context, how its file tools reach the file system: inside the context's
 * sandbox session exactly when bash runs sandboxed (only then can a command of the model race
 * the path checks, and only then is bubblewrap known to be wanted and allowed), on the host
 * otherwise.
 *
 * @returns The file access every file tool of the context uses.
 */
export function fileAccessFor(ctx: ResolvedContext, sessions: SandboxSessions): FileAccess {
  return ctx.bash !== false && ctx.bash.sandbox === "bwrap"
    ? sessionFileAccess(ctx, sessions)
    : hostFileAccess(ctx);
}
