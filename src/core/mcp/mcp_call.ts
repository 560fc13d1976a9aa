import { upstreamRateLimit } from "./upstream_rate_limit.ts";
import { ToolError } from "../tool_error.ts";
import { boundContent, contentText } from "../content_text.ts";
import { type ToolContent, type ToolOutput, toolOutput } from "../tool_output.ts";
import type { ToolContext } from "../tool_source.ts";
import type { CallToolResult, Client, McpTool } from "./mcp_sdk_types.ts";
import { McpErrorCode, mcpErrorCodeOf } from "./mcp_error_code.ts";

/** What a tool call needs of a client: the SDK's `Client` (a type only: no SDK code here). */
type McpToolCaller = Pick<Client, "callTool">;

/**
 * Answers one question of a call's own `input_required` round (MCP 2026-07-28): the params of the
 * `elicitation/create` request the server embedded, and the call's signal; resolves with the
 * answer. `CallingClient` (in `mcp_sdk.ts`) takes it in a `tools/call`'s options, so a question
 * goes to the call whose answer carried it, also when other calls share the connection.
 */
export type McpInputAnswerer = (
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
) => Promise<unknown>;

/** Options of one MCP tool call. */
export interface McpCallOptions {
  /** The SDK request deadline in milliseconds. */
  timeoutMs?: number;
  /** Most characters of the result's text; longer texts keep head and tail. */
  maxResultChars?: number;
  /** Most decoded bytes of the result's media; more is left out. */
  maxMediaBytes?: number;
  /** Whether a progress notification resets the deadline (up to `maxTotalTimeoutMs`). */
  resetTimeoutOnProgress?: boolean;
  /** The hard deadline when progress resets it. */
  maxTotalTimeoutMs?: number;
  /** The tool's definition as listed, whose `outputSchema` the SDK client validates against. */
  toolDefinition?: McpTool;
  /**
   * Replaces what must not reach a model (a connection's credentials) in the result, before it
   * is bounded, so that a cut never keeps part of one; returns its argument when there is none.
   */
  redact?: (result: McpResultParts) => McpResultParts;
}

/** What a model can see of a tool result, as {@linkcode McpCallOptions.redact} receives it. */
export interface McpResultParts {
  /** The content blocks, not yet bounded. */
  readonly content: readonly ToolContent[];
  /** The structured result, when any. */
  readonly structuredContent?: Record<string, unknown>;
}

/**
 * A progress listener that does nothing: with it a request carries a progress token (so progress
 * restarts its deadline) and no listener of the caller's is called.
 */
export function ignoreProgress(): void {}

/**
 * Calls a tool over an MCP client and returns its result as it came: content blocks (bounded),
 * `structuredContent` and `isError`. Invalid-params results and thrown errors become `ToolError`s.
 *
 * @param client The connected client.
 * @param call The tool's name on the server (`toolName`), the arguments (`args`), and the call's
 *   signal and progress listener (`context`).
 * @param options Deadline and result size.
 */
export function callMcpToolOutput(
  client: McpToolCaller,
  call: McpToolCall,
  options: McpCallOptions = {},
): Promise<ToolOutput> {
  const { toolName, args, context } = call;
  // The caller's trace context travels in `_meta` (W3C traceparent / tracestate / baggage).
  const params = context.trace === undefined
    ? { name: toolName, arguments: args }
    : { name: toolName, arguments: args, _meta: { ...context.trace } };
  const onProgress = context.onProgress;
  let sent: Promise<unknown>;
  try {
    const request: Parameters<McpToolCaller["callTool"]>[1] & { answerInput?: McpInputAnswerer } = {
      signal: context.signal,
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      maxTotalTimeout: options.maxTotalTimeoutMs,
      // A progress token only with a listener.
      onprogress: onProgress === undefined || onProgress === ignoreProgress
        ? onProgress
        : (p) => onProgress({ progress: p.progress, total: p.total, message: p.message }),
      // Undefined for a tool without an output schema: the SDK reads it as absent.
      toolDefinition: options.toolDefinition,
      // Undefined where the connection relays no question: the SDK's own handling stays.
      answerInput: context.answerInput,
    };
    sent = client.callTool(params, request);
  } catch (error) {
    sent = Promise.reject(error);
  }
  // One reaction on the client's promise (every call), not an async frame of its own; a
  // malformed result's error comes from `toolOutputOf` as it is.
  return sent.then(
    (result) => toolOutputOf(result, toolName, options),
    (error) => {
      throw mcpErrorToToolError(error, { toolName, signal: context.signal });
    },
  );
}

/** One call of a tool over MCP: its name on the server, its arguments and the call's context. */
export interface McpToolCall {
  /** The tool's name on the server. */
  toolName: string;
  args: Record<string, unknown>;
  /** The call's signal, progress listener, trace context and answerer of its own questions. */
  context: Pick<ToolContext, "onProgress" | "trace"> & {
    signal?: AbortSignal;
    answerInput?: McpInputAnswerer;
  };
}

/**
 * Converts a `tools/call` result to a tool output as it came: content blocks (bounded),
 * `structuredContent` and `isError`, with `options.redact` applied first. An invalid-params error
 * result becomes a `ToolError`.
 *
 * @param value The result.
 * @param toolName The tool's name on the server.
 * @param options Result size and redaction.
 */
export function toolOutputOf(
  value: unknown,
  toolName: string,
  options: McpCallOptions,
): ToolOutput {
  const problem = toolResultProblem(value);
  if (problem !== undefined) {
    const why = `the server sent a malformed result (${problem})`;
    throw new ToolError("tool_error", `Tool "${toolName}" failed: ${why}`);
  }
  const result = value as CallToolResult;
  const structured = result.structuredContent;
  let parts: McpResultParts = {
    content: Array.isArray(result.content) ? result.content as ToolContent[] : [],
    structuredContent: isObject(structured) ? structured as Record<string, unknown> : undefined,
  };
  if (options.redact !== undefined) parts = options.redact(parts);
  const content = boundContent(parts.content, {
    maxTextChars: options.maxResultChars,
    maxMediaBytes: options.maxMediaBytes,
  });
  const output: { -readonly [K in keyof ToolOutput]: ToolOutput[K] } = {
    content,
    structuredContent: parts.structuredContent,
  };
  if (result.isError === true) {
    // The SDK's McpServer reports invalid params (an unknown tool, invalid input) as error
    // results, not JSON-RPC errors.
    const text = contentText(content);
    // SDK 1.x prefixes the code; SDK 2.x (`@modelcontextprotocol/server`) sends the bare message.
    const invalid = /^MCP error -32602: /.exec(text) ??
      /^(?=(?:Input|Output) validation error: )/.exec(text);
    if (invalid) {
      const detail = text.slice(invalid[0].length);
      throw unknownTool(detail, toolName) ??
        new ToolError("invalid_arguments", detail.replace(/^Input validation error: /, ""));
    }
    output.isError = true;
  }
  return toolOutput(output);
}

/**
 * Converts what an MCP client call threw into a `ToolError` with the right code.
 *
 * @param error What was thrown.
 * @param call The tool's name on the server (`toolName`), and the call's `signal`, whose reason
 *   wins when it aborted.
 */
export function mcpErrorToToolError(
  error: unknown,
  call: { toolName: string; signal?: AbortSignal },
): ToolError {
  const { toolName, signal } = call;
  if (signal?.aborted && signal.reason instanceof ToolError) return signal.reason;
  if (error instanceof ToolError) return error;
  const limited = upstreamRateLimit(error, toolName);
  if (limited !== undefined) return limited;
  const cause = { cause: error };
  const code = mcpErrorCodeOf(error);
  if (code !== undefined) {
    const detail = stripPrefix((error as Error).message);
    switch (code) {
      case McpErrorCode.InvalidParams:
        return unknownTool(detail, toolName, cause) ??
          new ToolError(
            "invalid_arguments",
            `Invalid arguments for tool "${toolName}": ${detail}`,
            cause,
          );
      case McpErrorCode.RequestTimeout:
        return new ToolError(
          "timeout",
          `Tool "${toolName}" did not answer in time: ${detail}`,
          cause,
        );
      case McpErrorCode.ConnectionClosed:
        return new ToolError(
          "upstream_unavailable",
          `The server of tool "${toolName}" closed the connection`,
          cause,
        );
      case McpErrorCode.MethodNotFound:
        return new ToolError("unknown_tool", `The server does not know tool "${toolName}"`, cause);
      default:
        return new ToolError("tool_error", `Tool "${toolName}" failed: ${detail}`, cause);
    }
  }
  if (error instanceof Error && error.name === "AbortError") {
    return new ToolError("aborted", `The call to "${toolName}" was aborted`, cause);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    "upstream_unavailable",
    `The server of tool "${toolName}" is unavailable: ${message}`,
    cause,
  );
}

/**
 * The error when an invalid-params message is not about the model's arguments: `unknown_tool`
 * when the SDK's McpServer says it has no (enabled) tool of this name (removed or disabled since
 * it was listed), `tool_error` when the result broke the tool's own output schema.
 */
function unknownTool(
  detail: string,
  toolName: string,
  options?: ErrorOptions,
): ToolError | undefined {
  // The server's output broke its own schema: a server bug, not the model's arguments.
  if (
    detail.startsWith("Output validation error: ") ||
    detail.startsWith("Structured content does not match the tool's output schema")
  ) {
    return new ToolError(
      "tool_error",
      `Tool "${toolName}" returned a result that does not match its output schema: ${
        detail.replace(/^Output validation error: /, "")
      }`,
      options,
    );
  }
  // The SDK client could not compile the tool's output schema (ajv where code generation is
  // forbidden, or a broken schema): nothing the model can fix in its arguments.
  const uncompiled = `Tool '${toolName}' has an invalid outputSchema: `;
  if (detail.startsWith(uncompiled)) {
    return new ToolError(
      "tool_error",
      `Tool "${toolName}" declares an output schema that cannot be checked: ${
        detail.slice(uncompiled.length)
      }`,
      options,
    );
  }
  if (detail === `Tool ${toolName} not found`) {
    return new ToolError("unknown_tool", `The server does not know tool "${toolName}"`, options);
  }
  if (detail === `Tool ${toolName} disabled`) {
    return new ToolError("unknown_tool", `Tool "${toolName}" is disabled on its server`, options);
  }
  return undefined;
}

function stripPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

/**
 * What is wrong with a `tools/call` result, in a few words, or `undefined` when it has the shape
 * the MCP schema gives it: an object whose `content` (when present) is a list of known blocks,
 * each with its fields' types; `structuredContent` an object and `isError` a boolean when
 * present. Checked by hand (a few property reads per block), in place of the SDK client's schema,
 * so that every result a server sends is checked, whichever way the call went, before any of it
 * reaches a model or a serving client.
 *
 * @param value The result as received.
 * @returns The problem, such as `content[1] is an "image" block without a string "data"`.
 */
export function toolResultProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "it is not an object";
  const { content, structuredContent, isError } = value as Record<string, unknown>;
  if (content !== undefined) {
    if (!Array.isArray(content)) return '"content" is not a list';
    for (let i = 0; i < content.length; i++) {
      const problem = blockProblem(content[i]);
      if (problem !== undefined) return `content[${i}] ${problem}`;
    }
  }
  if (structuredContent !== undefined && !isObject(structuredContent)) {
    return '"structuredContent" is not an object';
  }
  if (isError !== undefined && typeof isError !== "boolean") {
    return '"isError" is not true or false';
  }
  return undefined;
}

// The fields each kind of block must have as strings (optional ones are not checked).
const REQUIRED: Record<string, readonly string[]> = {
  text: ["text"],
  image: ["data", "mimeType"],
  audio: ["data", "mimeType"],
  resource_link: ["uri", "name"],
  resource: [],
};

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) return "is not an object";
  const fields = block as Record<string, unknown>;
  const { type } = fields;
  if (typeof type !== "string" || !Object.hasOwn(REQUIRED, type)) {
    // Quoted whole or not at all: a cut could keep part of a credential that redaction (which
    // looks for whole ones) would then miss.
    const quoted = JSON.stringify(type) ?? "undefined";
    return `has an unknown type ${quoted.length <= 40 ? quoted : `(${quoted.length} characters)`}`;
  }
  // A loop, not `find` with a closure: every block of every result comes here.
  for (const field of REQUIRED[type]) {
    if (typeof fields[field] !== "string") {
      return `is a "${type}" block without a string "${field}"`;
    }
  }
  if (type === "resource") {
    const { resource } = fields;
    if (!isObject(resource)) return 'is a "resource" block without a "resource" object';
    const { uri, text, blob } = resource as Record<string, unknown>;
    if (typeof uri !== "string") return 'is a "resource" block whose resource has no string "uri"';
    if (typeof text !== "string" && typeof blob !== "string") {
      return 'is a "resource" block whose resource has neither a string "text" nor "blob"';
    }
  }
  return undefined;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
