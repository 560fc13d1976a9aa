import {
  type Attributes,
  type Counter,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { canonicalJson } from "../canonical_json.ts";
import { sha256Hex } from "../sha256_hex.ts";
import type { CallOptions, CallSettings, ToolCallEvent } from "../tool_call_types.ts";
import { errorMessage, ToolError } from "../tool_error.ts";
import { type RoutedTool, serverOf } from "../tool_source.ts";
import type { AuditRecord } from "../audit_sink.ts";
import { carrierOf, contextFrom, type TraceCarrier } from "./trace_context.ts";

const INVALID = { traceId: "", spanId: "", traceFlags: 0 };

/** The instrumentation scope of toolroute's spans and metrics. */
export const TELEMETRY_SCOPE = "@toolroute/toolroute";
const VERSION = "0.1.0";

/** A call being observed: its trace context for the tool, and how to finish it. */
export interface ObservedCall {
  /** The call span's W3C context, for `ToolContext.trace` (absent when nothing traces). */
  trace?: TraceCarrier;
  /**
   * Whether `finish` needs the call's event (a span, metrics or an audit sink); when not, the
   * caller may skip timing the call and building the event.
   */
  needsEvent: boolean;
  /**
   * Ends the span, records the metrics and hands the audit record to the sink; with a sink, the
   * promise settles (never rejecting) once the sink has the record, as the digest is WebCrypto's.
   */
  finish(event: ToolCallEvent, args: unknown): void | Promise<void>;
}

/** What a call with no span, no metrics, no audit and no trace context to pass on observes. */
const UNOBSERVED: ObservedCall = Object.freeze({ needsEvent: false, finish(): void {} });

let instruments:
  | { provider: MeterProvider; noop: boolean; calls: Counter; duration: Histogram }
  | undefined;
let tracing: { provider: unknown; tracer: Tracer } | undefined;
/** The API's no-op provider and meter, to skip all work while no SDK is registered. */
let noopTracing: object | undefined;
let noopMeter: object | undefined;

/**
 * Where the OpenTelemetry API (1.x, any copy of it) keeps what was registered globally. Until
 * something registers (a tracer, meter or propagator provider, a context manager) it is unset,
 * and both providers are the API's no-ops: checked with one property read per call instead of
 * the API's version-checked lookups (three per remote call).
 */
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");

function nothingRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] === undefined;
}

/** Whether no OpenTelemetry SDK is registered (the API's no-op provider is in place). */
export function tracingIsOff(): boolean {
  if (nothingRegistered()) return true;
  const provider = trace.getTracerProvider();
  if (!(provider instanceof ProxyTracerProvider)) return false;
  noopTracing ??= new ProxyTracerProvider().getDelegate();
  return provider.getDelegate() === noopTracing;
}

/**
 * Starts observing one tool call: an `execute_tool {name}` span following the OpenTelemetry
 * GenAI conventions (a child of the caller's `traceparent`, or of the active context), the call
 * metrics and the audit record. A no-op until the host registers an OpenTelemetry SDK, apart
 * from the audit sink and passing a caller's trace context on. `tool` is `undefined` for an
 * unknown name.
 */
export function observeCall(
  tool: RoutedTool | undefined,
  call: { name: string; options: CallOptions; settings: CallSettings },
): ObservedCall {
  const { name, options, settings } = call;
  const startedAt = settings.audit === undefined ? 0 : Date.now();
  const off = tracingIsOff();
  // No SDK and nothing to audit or pass on (the common case): nothing to do, per call.
  if (
    off && options.traceparent === undefined && settings.audit === undefined && metricsAreOff()
  ) return UNOBSERVED;
  const span = off ? undefined : startSpan(tool, name, options);
  // No SDK: no span, but a caller's trace context still passes on unchanged.
  const context = span?.spanContext() ??
    (options.traceparent === undefined
      ? undefined
      : trace.getSpanContext(contextFrom(options)) ?? INVALID);
  let carrier = context === undefined ? undefined : carrierOf(context);
  const { baggage } = options;
  if (carrier !== undefined && typeof baggage === "string" && baggage !== "") {
    carrier = { ...carrier, baggage };
  }
  return {
    trace: carrier,
    needsEvent: true,
    finish(event, args) {
      if (span !== undefined) {
        if (event.userId !== undefined && span.isRecording()) {
          span.setAttribute("enduser.id", event.userId);
        }
        if (event.isError) {
          span.setAttribute("error.type", event.code ?? "tool_error");
          span.setStatus({ code: SpanStatusCode.ERROR, message: event.code });
        }
        span.end();
      }
      record(name, event);
      return auditEvent(event, args, { tool, settings, startedAt, carrier });
    },
  };
}

/** An `execute_tool {name}` span, a child of the caller's `traceparent` or the active context. */
function startSpan(tool: RoutedTool | undefined, name: string, options: CallOptions): Span {
  const provider = trace.getTracerProvider();
  if (tracing?.provider !== provider) {
    tracing = { provider, tracer: provider.getTracer(TELEMETRY_SCOPE, VERSION) };
  }
  const span = tracing.tracer.startSpan(
    `execute_tool ${name}`,
    { kind: SpanKind.INTERNAL },
    contextFrom(options),
  );
  // Attributes only for a recording span: without an SDK a call pays for none of this.
  if (span.isRecording()) {
    const attributes = callAttributes(name, tool?.source);
    if (options.toolCallId !== undefined) attributes["gen_ai.tool.call.id"] = options.toolCallId;
    if (tool !== undefined) {
      attributes["gen_ai.tool.type"] = tool.source.endsWith("_mcp") ? "extension" : "function";
      attributes["toolroute.tool.origin"] = tool.origin;
    }
    span.setAttributes(attributes);
  }
  return span;
}

/** The attributes a call's span and its metrics share. */
function callAttributes(name: string, source: string | undefined): Attributes {
  const attributes: Attributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": name,
  };
  if (source !== undefined) attributes["toolroute.tool.source"] = source;
  return attributes;
}

/**
 * Holds a call back while the audit sink has no room for its record (`AuditSink.waitForRoom`):
 * nothing to wait for (`undefined`, the common case), or a promise of `undefined` once room is
 * there, or of a `ToolError` (`audit_unavailable`, or `aborted` when the call's signal aborts
 * first) when the sink gave up waiting: the call must then not run.
 */
export function auditRoom(
  settings: CallSettings,
  name: string,
  call: { signal?: AbortSignal },
): Promise<ToolError | undefined> | undefined {
  const { signal } = call;
  const waitForRoom = settings.audit?.waitForRoom;
  if (waitForRoom === undefined) return undefined;
  let waiting: void | Promise<void>;
  try {
    waiting = waitForRoom.call(settings.audit, signal);
  } catch (error) {
    return Promise.resolve(roomError(name, error, signal));
  }
  if (waiting === undefined) return undefined;
  return waiting.then(() => undefined, (error) => roomError(name, error, signal));
}

function roomError(name: string, error: unknown, signal: AbortSignal | undefined): ToolError {
  if (signal?.aborted) {
    return new ToolError("aborted", `The call to "${name}" was aborted before it started`);
  }
  return new ToolError(
    "audit_unavailable",
    `The call to "${name}" did not run: the audit trail has no room for its record (${
      errorMessage(error)
    }). Try again later`,
  );
}

/**
 * Hands one decision's audit record to the sink, if any (never throwing or rejecting): the
 * record says which decision (`allow`, `deny`, `ask`, `approve`, `reject`, `unknown_tool`,
 * `invalid_arguments`), the rule, the user and the tool; the arguments only as a digest unless
 * `auditArguments` is on. With a sink, the promise settles once the sink has the record
 * (WebCrypto's digest is asynchronous).
 */
export function auditEvent(
  event: ToolCallEvent,
  args: unknown,
  context: {
    tool?: RoutedTool;
    settings: CallSettings;
    startedAt?: number;
    carrier?: TraceCarrier;
  },
): Promise<void> | undefined {
  const { settings, tool, carrier } = context;
  const sink = settings.audit;
  if (sink === undefined) return;
  const startedAt = context.startedAt ?? Date.now();
  const { userId, source, isError, code, durationMs } = event;
  const policy = policyOf(event);
  const server = tool === undefined ? undefined : serverOf(tool);
  const withArguments = settings.auditArguments === true;
  // The text is taken now: object arguments may change once the call is over.
  return sha256Hex(digestText(args)).then((digest) => {
    const build = (): AuditRecord => {
      const ids = carrier?.traceparent.split("-");
      return {
        time: new Date(startedAt).toISOString(),
        ...(userId === undefined ? {} : { userId }),
        tool: event.tool,
        ...(source === undefined ? {} : { source }),
        ...(server === undefined ? {} : { server }),
        ...(tool === undefined ? {} : { origin: tool.origin }),
        ...policy,
        argumentsDigest: `sha256-${digest}`,
        ...(withArguments ? { arguments: plain(args) } : {}),
        durationMs: Math.round(durationMs * 1000) / 1000,
        outcome: isError ? code ?? "tool_error" : "ok",
        ...(ids === undefined ? {} : { traceId: ids[1], spanId: ids[2] }),
      };
    };
    try {
      // Text arguments cannot change after the call: the sink may build the line when it writes.
      if (sink.writeLater !== undefined && (typeof args === "string" || args === undefined)) {
        sink.writeLater(build);
        return;
      }
      const written = sink.write(build());
      if (written instanceof Promise) written.catch(() => {});
    } catch {
      // A failing sink must not change the call; sinks report their own errors.
    }
  });
}

/** Hands a call's event to the router's `onEvent`, if any: an observer's failure must not change the result. */
export function emitEvent(settings: CallSettings, event: ToolCallEvent): void {
  try {
    settings.onEvent?.(event);
  } catch {
    // Ignored, as `ToolRouterOptions.onEvent` says.
  }
}

/** Whether the metrics API has no SDK behind it (its no-op meter provider is in place). */
function metricsAreOff(): boolean {
  if (nothingRegistered()) return true;
  return instrumentsOf(metrics.getMeterProvider()).noop;
}

function instrumentsOf(provider: MeterProvider): NonNullable<typeof instruments> {
  if (instruments?.provider !== provider) {
    const meter = provider.getMeter(TELEMETRY_SCOPE, VERSION);
    noopMeter ??= createNoopMeter();
    instruments = {
      provider,
      noop: meter === noopMeter,
      calls: meter.createCounter("toolroute.tool.calls", {
        description: "Tool calls routed, by tool, source and outcome",
      }),
      duration: meter.createHistogram("toolroute.tool.call.duration", {
        description: "Duration of routed tool calls",
        unit: "s",
      }),
    };
  }
  return instruments;
}

function record(name: string, event: ToolCallEvent): void {
  const instruments = instrumentsOf(metrics.getMeterProvider());
  if (instruments.noop) return;
  const attributes = callAttributes(name, event.source);
  if (event.isError) attributes["error.type"] = event.code ?? "tool_error";
  instruments.calls.add(1, attributes);
  instruments.duration.record(event.durationMs / 1000, attributes);
}

type PolicyFields = Pick<
  AuditRecord,
  "decision" | "rule" | "approval" | "approvalId" | "grantId" | "argumentsEdited" | "hooks"
>;

/**
 * The record's decision, rule and approval: an unknown tool or invalid arguments first (nothing
 * ran), then the policy's fields (an ask that a person answered is `approve` or `reject`), and
 * `allow` by the `default` when no policy decided.
 */
function policyOf(event: ToolCallEvent): PolicyFields {
  const { decision, rule, approval, approvalId, code } = event;
  const fields: PolicyFields = {
    decision: code === "unknown_tool" || code === "invalid_arguments"
      ? code
      : decision !== "ask"
      ? decision ?? "allow"
      : approval === "approved"
      ? "approve"
      : approval === "rejected" || approval === "invalid"
      ? "reject"
      : "ask",
  };
  if (typeof rule === "string") fields.rule = rule;
  else if (fields.decision === "allow") fields.rule = "default";
  if (approval !== undefined) fields.approval = approval;
  if (approvalId !== undefined) fields.approvalId = approvalId;
  if (event.grantId !== undefined) fields.grantId = event.grantId;
  if (event.argumentsEdited === true) fields.argumentsEdited = true;
  if (event.hooks !== undefined && event.hooks.length > 0) fields.hooks = event.hooks;
  return fields;
}

function plain(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function digestText(args: unknown): string {
  if (args === undefined) return "{}";
  try {
    return canonicalJson(typeof args === "string" ? JSON.parse(args) : args);
  } catch {
    return String(args);
  }
}
