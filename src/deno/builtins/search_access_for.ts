import type { ResolvedContext } from "./builtin_context.ts";
import { sessionSearchAccess } from "./sandbox/session_search_access.ts";
import type { SandboxSessions } from "./sandbox/sandbox_sessions.ts";
import { hostSearchAccess } from "./search/host_search_access.ts";
import type { SearchAccess } from "./search/search_access.ts";

/**
 * Chooses, once per context, how its searches (`glob`, `grep`) reach the files: inside the
 * context's sandbox session exactly when bash runs sandboxed (as the file tools do, see
 * `fileAccessFor`), on the host otherwise.
 *
 * @returns The search access of the context.
 */
export function searchAccessFor(ctx: ResolvedContext, sessions: SandboxSessions): SearchAccess {
  return ctx.bash !== false && ctx.bash.sandbox === "bwrap"
    ? sessionSearchAccess(ctx, sessions)
    : hostSearchAccess();
}
