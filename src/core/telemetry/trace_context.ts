import {
  type Context,
  context as otelContext,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
} from "@opentelemetry/api";

/** W3C trace context as plain data: what travels in MCP `_meta` and in HTTP headers. */
export interface TraceCarrier {
  /** `00-{trace id}-{span id}-{flags}`. */
  traceparent: string;
  /** Vendor state, when any. */
  tracestate?: string;
  /** W3C baggage, passed on as received (never interpreted). */
  baggage?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The OpenTelemetry context a carrier continues: the remote span as parent. Without a valid
 * carrier, the active context (a host's span, when it registered a context manager).
 */
export function contextFrom(carrier: Partial<TraceCarrier> | undefined): Context {
  if (carrier?.traceparent === undefined) return otelContext.active();
  const match = typeof carrier?.traceparent === "string"
    ? TRACEPARENT.exec(carrier.traceparent.trim().toLowerCase())
    : null;
  if (match === null || match[1] === "ff" || (match[1] === "00" && match[5] !== undefined)) {
    return otelContext.active();
  }
  const spanContext: SpanContext = {
    traceId: match[2],
    spanId: match[3],
    traceFlags: parseInt(match[4], 16) & 1,
    isRemote: true,
    ...(typeof carrier?.tracestate === "string" && carrier.tracestate !== ""
      ? { traceState: createTraceState(carrier.tracestate) }
      : {}),
  };
  if (!isSpanContextValid(spanContext)) return otelContext.active();
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** The carrier of a span context, or `undefined` when it is not valid (no SDK and no parent). */
export function carrierOf(spanContext: SpanContext): TraceCarrier | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const state = spanContext.traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}
