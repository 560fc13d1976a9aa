import { ProtocolError, ProtocolErrorCode } from "../mcp_sdk.ts";

/** The `_meta` key of `tools/call` in which a client names its agent run. */
export const RUN_ID_META = "toolroute/runId";

/** Longest run id a client may name; a longer one is refused rather than stored as a key. */
const MAX_RUN_ID_CHARS = 256;

/**
 * The run a served call belongs to, for per-run budgets (policy limits without `windowMs`): the
 * run the client names in `_meta["toolroute/runId"]`, else its MCP session, else one run per user
 * (stdio, and HTTP without sessions; the limit's count is per user already). Throws an
 * invalid-params `ProtocolError` for a run id that is not a non-empty string of at most 256
 * characters. A named run is its user's: another user naming the same run meets it in no count,
 * not even in a limit counted for the whole router (`per: "router"`).
 *
 * @param meta The request's `_meta`.
 * @param sessionId The MCP session, when the transport has one.
 * @param options The user the call is made for.
 * @returns The run id.
 */
export function servedRunId(
  meta: Record<string, unknown> | undefined,
  sessionId: string | undefined,
  options: { userId?: string } = {},
): string {
  const named = meta?.[RUN_ID_META];
  if (named === undefined) return sessionId === undefined ? "served" : `session:${sessionId}`;
  if (typeof named !== "string" || named.length === 0 || named.length > MAX_RUN_ID_CHARS) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `_meta["${RUN_ID_META}"] must be a string of 1 to ${MAX_RUN_ID_CHARS} characters that names the agent run`,
    );
  }
  // The user id is encoded (no `/` in it), so a user and a run cannot be cut elsewhere.
  return options.userId === undefined
    ? `client:${named}`
    : `user:${encodeURIComponent(options.userId)}/client:${named}`;
}
