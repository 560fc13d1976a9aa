import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { isToolError } from "../../../tool_error.ts";
import type { ToolContext } from "../../../tool_source.ts";
import { TELEMETRY_SCOPE, tracingIsOff } from "../../../telemetry/call_telemetry.ts";
import { carrierOf, contextFrom } from "../../../telemetry/trace_context.ts";

/**
 * Runs one remote MCP `tools/call` inside a client span (`tools/call {tool}`, a child of the
 * tool call's span), and hands the call a context whose `trace` is that span, so the request's
 * `_meta` carries it upstream.
 *
 * @param call The server id, the tool's name on the server and the call's context.
 * @param run Makes the request with the given context.
 * @returns The result text.
 */
export function tracedRemoteCall<T>(
  call: { serverId: string; toolName: string; context: ToolContext },
  run: (context: ToolContext) => Promise<T>,
): Promise<T> {
  const { serverId, toolName, context } = call;
  // Without an SDK a client span would only repeat the caller's context: pass it on as it is,
  // with no promise of our own around the call.
  if (tracingIsOff()) return run(context);
  return traced(serverId, toolName, context, run);
}

async function traced<T>(
  serverId: string,
  toolName: string,
  context: ToolContext,
  run: (context: ToolContext) => Promise<T>,
): Promise<T> {
  const span = trace.getTracer(TELEMETRY_SCOPE).startSpan(`tools/call ${toolName}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": toolName,
      "toolroute.mcp.server.id": serverId,
    },
  }, contextFrom(context.trace));
  const own = carrierOf(span.spanContext());
  const baggage = context.trace?.baggage;
  const carrier = own === undefined || baggage === undefined ? own : { ...own, baggage };
  try {
    return await run(carrier === undefined ? context : { ...context, trace: carrier });
  } catch (error) {
    span.setAttribute("error.type", isToolError(error) ? error.code : "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
