import { type ErrorCode, errorMessage, isToolError, ToolError } from "./tool_error.ts";
import { parseArguments } from "./parse_arguments.ts";
import { untilStopped } from "./deadline_timer.ts";
import { checkPositive } from "./check_positive.ts";
import { boundContent, contentText } from "./content_text.ts";
import { isToolOutput, type ToolOutput, toResultText } from "./tool_output.ts";
import type { RoutedTool, SourceKind, ToolContext } from "./tool_source.ts";
import { auditRoom, emitEvent, observeCall } from "./telemetry/call_telemetry.ts";
import type {
  CallDecision,
  CallOptions,
  CallSettings,
  ToolCallEvent,
  ToolCallResult,
} from "./tool_call_types.ts";

/** One call to run: the tool, as the model named it, with its arguments and who asks. */
export interface ToolCall {
  /** The tool, or `undefined` when the name is not exposed. */
  tool: RoutedTool | undefined;
  name: string;
  /** The model's arguments: JSON text or a parsed object. */
  args: unknown;
  /** The call's signal, deadline and listeners. */
  options: CallOptions;
  userId?: string;
  /** Why the name is not exposed, when `tool` is `undefined` (`unknown_tool` by default). */
  missing?: () => ToolError;
  /** What the policy decided, for the call's event and audit record. */
  decision?: CallDecision;
  /** The hooks' `after` steps: the result they return is the call's (never rejects). */
  after?: (result: ToolCallResult) => ToolCallResult | Promise<ToolCallResult>;
}

/**
 * Calls one tool: takes room for its audit record (a full audit sink holds the call back, and one
 * that stays full fails it closed), parses the arguments, runs it under the deadline and signal,
 * and converts every failure the call causes into an error result. This is the router's single
 * catch boundary.
 *
 * @param call The tool, name, arguments, options, user and exposed names.
 * @returns The result; never rejects for anything the call caused.
 */
export async function callTool(call: ToolCall, settings: CallSettings): Promise<ToolCallResult> {
  const { tool, name, args, options, userId, decision } = call;
  // Most calls set no deadline of their own: no message built for them.
  if (options.timeoutMs !== undefined) {
    checkPositive(options.timeoutMs, "timeoutMs", { where: `Cannot call "${name}"` });
  }
  const observed = observeCall(tool, { name, options, settings });
  // Without an observer (no span, metrics, audit or `onEvent`) the call is not timed.
  const observe = observed.needsEvent || settings.onEvent !== undefined;
  const started = observe ? performance.now() : 0;
  let result: ToolCallResult;
  try {
    // The call's options carry its signal: no object of its own for it.
    const room = auditRoom(settings, name, options);
    if (room !== undefined) {
      const failure = await room;
      if (failure !== undefined) throw failure;
    }
    if (tool === undefined) throw call.missing?.() ?? unknownTool(name, []);
    const parsed = parseArguments(args, settings.argumentLimits);
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const value = await runGuarded(tool, parsed, {
      options,
      trace: observed.trace,
      timeoutMs,
      userId,
    });
    if (isToolOutput(value)) {
      result = outputResult(value, settings, tool.source, name);
    } else {
      // Long results are cut by the tool set's result budget, which keeps the whole.
      const text = toResultText(value);
      result = {
        text,
        isError: false,
        source: tool.source,
        tool: name,
        content: [{ type: "text", text }],
      };
    }
  } catch (error) {
    result = errorResult({ name, source: tool?.source }, toFailure(error, name));
    if (isToolError(error) && error.retryAfterMs !== undefined) {
      result.retryAfterMs = error.retryAfterMs;
    }
  }
  if (call.after !== undefined) {
    const after = call.after(result);
    result = after instanceof Promise ? await after : after;
  }
  if (!observe) return result;
  const event: ToolCallEvent = {
    type: "call",
    tool: name,
    source: result.source,
    userId,
    durationMs: performance.now() - started,
    isError: result.isError,
    code: result.code,
    ...decision,
  };
  // The sink has the record before the call returns (the digest is asynchronous).
  await observed.finish(event, args);
  emitEvent(settings, event);
  return result;
}

/**
 * A failed call's result: the text for the model, also its one content block.
 *
 * @param tool The tool name as called, and the source that ran it when known.
 * @param failure The error's code and the text for the model.
 */
export function errorResult(
  tool: { name: string; source?: SourceKind },
  failure: { code: ErrorCode; text: string },
): ToolCallResult {
  const { code, text } = failure;
  const result: ToolCallResult = {
    text,
    isError: true,
    code,
    tool: tool.name,
    content: [{ type: "text", text }],
  };
  if (tool.source !== undefined) result.source = tool.source;
  return result;
}

/** The result of a tool that returned content blocks: bounded, with text that has no media. */
function outputResult(
  output: ToolOutput,
  settings: CallSettings,
  source: SourceKind,
  name: string,
): ToolCallResult {
  const content = [
    ...boundContent(output.content, { maxMediaBytes: settings.maxMediaBytes }),
  ];
  const text = contentText(content, output.structuredContent);
  const result: ToolCallResult = { text, isError: false, source, tool: name, content };
  if (output.structuredContent !== undefined) result.structuredContent = output.structuredContent;
  if (output.isError === true) {
    result.isError = true;
    result.code = "tool_error";
    if (text === "") {
      result.text = `Tool "${name}" reported an error without a message`;
      if (content.length === 0) result.content = [{ type: "text", text: result.text }];
    }
  }
  return result;
}

/**
 * Runs a tool with the call's own signal and its one timer: the signal aborts when the caller's
 * does or the deadline passes (its reason is the `ToolError` to report), and the call ends then
 * even when the tool ignores it. Executors below (the gateway, the sandbox) only listen to this
 * signal and read `timeoutMs`; none keeps a second timer for the same deadline. Every call gets
 * its own signal, also without a deadline or caller's signal: on workerd a signal belongs to the
 * request that made it, and a call's listeners end with it. Not async: a call aborted before it
 * starts throws here, inside the caller's `try`.
 */
function runGuarded(
  tool: RoutedTool,
  args: Record<string, unknown>,
  run: {
    options: CallOptions;
    trace: ToolContext["trace"];
    timeoutMs: number | undefined;
    userId: string | undefined;
  },
): Promise<unknown> {
  const { options, trace, timeoutMs, userId } = run;
  const outer = options.signal;
  if (outer?.aborted) {
    throw new ToolError("aborted", `The call to "${tool.name}" was aborted before it started`);
  }
  // The context is built with the run's signal, in one object (not spread into a second).
  const execute = (signal: AbortSignal) =>
    tool.execute(
      args,
      {
        signal,
        userId,
        onProgress: options.onProgress,
        timeoutMs,
        trace,
        elicit: options.onElicitation,
        log: options.onLog,
      } satisfies ToolContext,
    );
  return untilStopped(execute, {
    signal: outer,
    timeoutMs,
    aborted: () => new ToolError("aborted", `The call to "${tool.name}" was aborted`),
    timedOut: () =>
      new ToolError("timeout", `Tool "${tool.name}" did not finish within ${timeoutMs} ms`),
  });
}

/** The error of a name that is not exposed, naming the ones that are. */
export function unknownTool(name: string, known: readonly string[]): ToolError {
  const list = known.length === 0
    ? "No tools are available in this request"
    : `Available tools: ${known.slice(0, 30).join(", ")}${known.length > 30 ? ", …" : ""}`;
  return new ToolError("unknown_tool", `Unknown tool ${JSON.stringify(String(name))}. ${list}`);
}

/** Converts anything thrown by a call into a code and a plain-sentence text for the model. */
function toFailure(error: unknown, name: string): { code: ErrorCode; text: string } {
  if (isToolError(error)) return { code: error.code, text: error.message };
  if (error instanceof Error && error.name === "NotCapable") {
    return {
      code: "permission_denied",
      text: `The sandbox denied the operation: ${error.message}`,
    };
  }
  if (error instanceof Error && error.name === "PermissionDenied") {
    return {
      code: "permission_denied",
      text: `The operating system denied the operation: ${error.message}`,
    };
  }
  return { code: "tool_error", text: `Tool "${name}" failed: ${errorMessage(error)}` };
}
