import type { CallOptions, ToolCallResult } from "../../tool_call_types.ts";
import type { ToolSet } from "../../tool_set.ts";
import type {
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
} from "../../tool_source.ts";
import type { CallToolResult, ServerContext } from "../mcp_sdk.ts";
import {
  cannotAsk,
  checkLinkShown,
  elicitationApprover,
  type ElicitationCapability,
  type SendToClient,
} from "./approval_elicitation.ts";
import { callInRounds } from "./modern_call_rounds.ts";
import { servedLinks } from "./_served_uri.ts";
import { servedRunId } from "./_served_run_id.ts";

/** The syslog levels, least severe first (MCP `LoggingLevel`). */
export const LOG_LEVELS: readonly ToolLogEntry["level"][] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** How a served `tools/call` is answered: the server's side of it. */
export interface ServedCallOptions {
  /** The request's tool set (throws when it cannot be had). */
  toolSet: () => Promise<ToolSet>;
  /** Whether the 2026-07-28 era is served (asks become `input_required` results). */
  modern: boolean;
  capability: ElicitationCapability;
  timeoutMs?: number;
  /** The log level each session set, by session id (`""`: a session-less one). */
  levels: ReadonlyMap<string, number>;
}

/**
 * Answers one `tools/call` of a `ToolSetServer`: runs the call through the request's tool set with
 * its progress, logs, trace context, run and elicitation relayed to the client, and shapes the
 * result (or the `input_required` round) for the protocol.
 */
export async function servedCall(
  request: { params: CallParams; ctx: ServerContext },
  options: ServedCallOptions,
): Promise<CallToolResult> {
  const { ctx } = request;
  const { signal, id, notify } = ctx.mcpReq;
  const sendRequest = ctx.mcpReq.send as unknown as SendToClient;
  const { name, arguments: args, _meta } = request.params;
  let toolSet: ToolSet;
  try {
    toolSet = await options.toolSet();
  } catch (error) {
    return errorResult((error as Error).message);
  }
  const listed = toolSet.names;
  const { capability } = options;
  const call = {
    name,
    args: args ?? {},
    options: {
      signal,
      timeoutMs: options.timeoutMs,
      onProgress: progressSender(_meta?.progressToken, notify),
      ...traceOf(_meta, id),
      runId: servedRunId(_meta, ctx.sessionId, { userId: toolSet.userId }),
      // The legacy era asks on this request's stream; the modern one asks in rounds instead
      // (callInRounds puts its own in place of this one).
      onElicitation: capability
        ? (request, signal) => elicit(sendRequest, request, { signal, capability })
        : undefined,
      onLog: (entry) => {
        const level = LOG_LEVELS.indexOf(entry.level);
        if (level < 0 || level < (options.levels.get(ctx.sessionId ?? "") ?? 0)) return;
        send(notify, { method: "notifications/message", params: entry });
      },
    } satisfies CallOptions,
  };
  const answer = options.modern
    ? await callInRounds(toolSet, {
      ...call,
      round: {
        inputResponses: ctx.mcpReq.inputResponses,
        requestState: ctx.mcpReq.requestState(),
        capability,
      },
    })
    // A policy's ask becomes a form-mode elicitation to this client when it declared elicitation.
    : cannotAsk(
      await toolSet.call(name, call.args, {
        ...call.options,
        approve: elicitationApprover(capability, sendRequest),
      }),
      name,
    );
  if ("resultType" in answer) return answer as unknown as CallToolResult;
  // The call listed more tools (a search, or the first cut result's read_result): tell this
  // client on this request's stream, in both eras, so it lists them (a client that drops
  // the notice sees them on its next tools/list, which lists them from the same tool set).
  if (toolSet.names !== listed) {
    send(notify, { method: "notifications/tools/list_changed" });
  }
  return callResult(toolSet, name, answer);
}

/** A `tools/call` request's params, as the SDK checked them. */
export interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Sends a notification related to the request; a client gone meanwhile changes nothing. */
function send(notify: unknown, notification: { method: string; params?: unknown }): void {
  (notify as (n: typeof notification) => Promise<void>)(notification).catch(() => {});
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function progressSender(
  token: unknown,
  notify: unknown,
): ((progress: ToolProgress) => void) | undefined {
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let last = -Infinity;
  return (report) => {
    // MCP requires progress to increase with each notification; drop reports that do not.
    if (!(typeof report?.progress === "number" && report.progress > last)) return;
    last = report.progress;
    const params: Record<string, unknown> = { progressToken: token, progress: report.progress };
    if (typeof report.total === "number") params.total = report.total;
    if (typeof report.message === "string") params.message = report.message;
    send(notify, { method: "notifications/progress", params });
  };
}

/**
 * The MCP answer for a call: the result's content blocks, `structuredContent` and `isError` as
 * the tool (or upstream server) gave them. A tool that declares an output schema but returned no
 * structured content gets an error result: SDK clients reject such an answer outright.
 */
function callResult(toolSet: ToolSet, name: string, result: ToolCallResult): CallToolResult {
  const { structuredContent, isError } = result;
  if (!isError && structuredContent === undefined && toolSet.has(name)) {
    const tool = toolSet.toMcp().find((entry) => entry.name === name);
    if (tool?.outputSchema !== undefined) {
      return errorResult(
        `Tool "${name}" declares an output schema but returned no structured content`,
      );
    }
  }
  // A link to a resource of the tool's server names it in the form that reads back through serve.
  const server = toolSet.upstreamOf(name);
  return {
    content: server === undefined ? result.content : servedLinks(result.content, server.id),
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(isError ? { isError: true } : {}),
  } as CallToolResult;
}

/**
 * Asks the serving client (the person behind the call) for input: MCP form elicitation, or URL
 * elicitation (a link for the person to open) when the request has a `url` and the client
 * declared it; a `url` request to a client without it fails, so the link is never shown as form
 * text the client may pass to the model.
 */
async function elicit(
  send: SendToClient,
  request: ToolElicitation,
  options: { signal: AbortSignal; capability: ElicitationCapability },
): Promise<ToolElicitationResult> {
  const { signal, capability } = options;
  checkLinkShown(request, capability);
  const params = request.url === undefined
    ? { message: request.message, requestedSchema: request.requestedSchema }
    : {
      mode: "url",
      message: request.message,
      url: request.url,
      elicitationId: crypto.randomUUID(),
    };
  const answer = await send({ method: "elicitation/create", params }, { signal });
  return answer as ToolElicitationResult;
}

/** The caller's W3C trace context from `_meta` (MCP 2026-07-28), and the request id. */
function traceOf(
  meta: Record<string, unknown> | undefined,
  requestId: string | number,
): { traceparent?: string; tracestate?: string; baggage?: string; toolCallId: string } {
  const trace: ReturnType<typeof traceOf> = { toolCallId: String(requestId) };
  for (const key of ["traceparent", "tracestate", "baggage"] as const) {
    if (typeof meta?.[key] === "string") trace[key] = meta[key];
  }
  return trace;
}
