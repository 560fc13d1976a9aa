import { ToolError } from "../../../tool_error.ts";
import type { ToolContext } from "../../../tool_source.ts";
import type { ToolOutput } from "../../../tool_output.ts";
import { callDeadline } from "../calls/call_deadline.ts";
import type { ProgressCall, ProgressListener } from "../calls/progress_tokens.ts";
import {
  callMcpToolOutput,
  type McpCallOptions,
  type McpInputAnswerer,
  type McpToolCall,
} from "../../mcp_call.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../mcp_error_code.ts";
import type { Client } from "../../mcp_sdk.ts";
import type { ConnectionLifecycle } from "./connection_lifecycle.ts";
import type { ToolListIndex } from "./tool_list_cache.ts";
import type { McpElicitationRequest, McpElicitationResult } from "../mcp_gateway_types.ts";

/**
 * What a call needs of its connection: a `ServerConnection` (named by its base and the call
 * methods it adds, since `server_connection.ts` imports this file).
 */
export interface CallingConnection extends ConnectionLifecycle {
  /** The progress listener to give a call (a token is sent exactly when it is defined). */
  progressListener(toolName: string, call: ProgressCall): ProgressListener | undefined;
  /**
   * The request options of a call: its deadline, the hard one, the result bounds (one frozen
   * object per connection for calls without a deadline of their own).
   */
  callOptions(ownTimeoutMs: number | undefined): CallDefaults;
  /** The answerer of one call's own `input_required` questions (see `ServerConnection`). */
  inputAnswerer(call: ToolContext): McpInputAnswerer | undefined;
  /** Answers a server's input request on behalf of one call (see `ServerConnection`). */
  answerInput(
    call: ToolContext | undefined,
    asked: { request: McpElicitationRequest; signal: AbortSignal },
  ): Promise<McpElicitationResult>;
}

/** The request options of a call on a connection. */
export type CallDefaults = Readonly<
  & Required<Omit<McpCallOptions, "maxResultChars" | "maxMediaBytes" | "toolDefinition">>
  & Pick<McpCallOptions, "maxMediaBytes" | "toolDefinition">
>;

/** One tool call. */
export type ToolCall = McpToolCall & { context: ToolContext };

/** What a ready call returns when its request could not be delivered (see `readyFailed`). */
export const NOT_SENT: unique symbol = Symbol("not sent");

/**
 * Calls under a deadline of ours that also bounds connecting: a call that cannot be delivered
 * (server down, session expired) reconnects with backoff and is sent again, once; a call that was
 * delivered is never sent twice.
 *
 * @param call The call; `firstAttempt` 1 when it was tried once already (on a ready client).
 */
export async function callGuarded(
  connection: CallingConnection,
  call: ToolCall & { firstAttempt: number },
): Promise<ToolOutput> {
  const { toolName, args, context, firstAttempt } = call;
  const deadline = callDeadline(toolName, context, connection.settings);
  const { signal, timeoutMs, hardMs, extendable } = deadline;
  // A progress token only where it can be of use: a listener, or progress that may extend.
  const onProgress = connection.progressListener(toolName, {
    onProgress: context.onProgress,
    extendable,
  });
  const base = connection.callOptions(undefined);
  const options = withDefinition(connection.index, toolName, {
    ...base,
    timeoutMs,
    resetTimeoutOnProgress: extendable,
    maxTotalTimeoutMs: hardMs,
  });
  try {
    for (let attempt = firstAttempt;; attempt++) {
      const client = await connection.readyClient(toolName, signal);
      try {
        return await callMcpToolOutput(
          client,
          {
            toolName,
            args,
            context: {
              ...context,
              signal,
              onProgress,
              answerInput: connection.inputAnswerer(context),
            },
          },
          options,
        );
      } catch (error) {
        // Throws unless the request was not delivered (and the client dropped): then once more.
        await readyFailed(connection, { ...call, client, options, error: error as ToolError });
        if (attempt === 0 && !signal.aborted) continue;
        throw connection.redactor.toolError(error);
      }
    }
  } finally {
    deadline.dispose();
  }
}

/**
 * The call options with the listed definition of a tool that declares an output schema: the SDK
 * client validates the result against it (other tools' options stay the shared ones).
 */
export function withDefinition<T extends object>(
  index: ToolListIndex,
  toolName: string,
  options: T,
): T {
  const definition = index.withOutput.get(toolName);
  return definition === undefined ? options : { ...options, toolDefinition: definition };
}

/**
 * What a call's failure becomes: the abort reason, `NOT_SENT` (after dropping the client)
 * when the request was not delivered, a timeout naming the deadline that passed, or the error
 * with the connection's credentials redacted (thrown).
 *
 * @param call The call, its client and options, and what it threw.
 * @returns `NOT_SENT`, or throws.
 */
export async function readyFailed(
  connection: CallingConnection,
  call: ToolCall & { client: Client; options: CallDefaults; error: ToolError },
): Promise<typeof NOT_SENT> {
  const { context, toolName, options, error } = call;
  if (context.signal.aborted) throw aborted(context.signal, toolName, error);
  const cause = error.cause;
  const dropped = connection.undelivered(call.client, cause);
  if (dropped !== undefined) {
    await dropped;
    return NOT_SENT;
  }
  if (error.code === "timeout" && mcpErrorCodeOf(cause) === McpErrorCode.RequestTimeout) {
    // The SDK's timeout error says in `data` which deadline passed.
    const data = (cause as { data?: { maxTotalTimeout?: unknown } }).data;
    const ms = data?.maxTotalTimeout !== undefined ? options.maxTotalTimeoutMs : options.timeoutMs;
    throw new ToolError("timeout", `Tool "${toolName}" did not finish within ${ms} ms`, { cause });
  }
  throw connection.redactor.toolError(error);
}

/** The error of a call its caller aborted: the abort's own `ToolError`, else `aborted`. */
function aborted(signal: AbortSignal, toolName: string, error: unknown): ToolError {
  const reason = signal.reason;
  return reason instanceof ToolError
    ? reason
    : new ToolError("aborted", `The call to "${toolName}" was aborted`, { cause: error });
}
