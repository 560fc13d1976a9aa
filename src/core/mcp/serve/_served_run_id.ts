import { ProtocolError, ProtocolErrorCode } from "../mcp_sdk.ts";

/** The `_meta` key of `tools/call` in which a client names its agent run. */
export const RUN_ID_META = "toolroute/runId";

/** Longest run id a client may name; a longer one is refused rather than stored as a key. */
const MAX_RUN_ID_CHARS = 256;

/**
 * The run a served call belongs to, for per-run budgets (policy limits without `windowMs`): the
 * run the client names in `_meta["toolroute/runId"]`, else its MCP session, else one run per user
 * (stdio, 2026-07-28 clients and HTTP without sessions). Throws an
 * invalid-params `ProtocolError` for a run id that is not a non-empty string of at most 256
 * characters. A named run is its user's: another user naming the same run meets it in no count,
 * not even in a limit counted for the whole router (`per: "router"`).
 */
export function servedRunId(
  meta: Record<string, unknown> | undefined,
  sessionId: string | undefined,
  options: { userId?: string } = {},
): string {
  const named = meta?.[RUN_ID_META];
  // The user id is encoded (no `/` in it), so a user and a run cannot be cut elsewhere.
  const user = options.userId === undefined
    ? undefined
    : `user:${encodeURIComponent(options.userId)}`;
  if (named === undefined) {
    if (sessionId !== undefined) return `session:${sessionId}`;
    // Without a session (stdio, 2026-07-28 clients, stateless HTTP) the run is the user's own:
    // one run for all users would let one of them spend a router-wide budget for the others.
    return user === undefined ? "served" : `${user}/served`;
  }
  if (typeof named !== "string" || named.length === 0 || named.length > MAX_RUN_ID_CHARS) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `_meta["${RUN_ID_META}"] must be a string of 1 to ${MAX_RUN_ID_CHARS} characters that names the agent run`,
    );
  }
  return user === undefined ? `client:${named}` : `${user}/client:${named}`;
}
