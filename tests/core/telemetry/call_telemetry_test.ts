import { assert, assertEquals, assertMatch } from "@std/assert";
import { trace, type TracerProvider } from "@opentelemetry/api";
import { observeCall, tracingIsOff } from "../../../src/core/telemetry/call_telemetry.ts";
import type { AuditRecord } from "../../../src/core/audit_sink.ts";
import type { ToolCallEvent } from "../../../src/core/tool_call_types.ts";

const EVENT: ToolCallEvent = { type: "call", tool: "echo", durationMs: 1, isError: false };

Deno.test("observeCall() without an SDK, audit or caller trace asks for no event and passes no trace", () => {
  assertEquals(tracingIsOff(), true);
  const observed = observeCall(undefined, { name: "echo", options: {}, settings: {} });
  assertEquals(observed.needsEvent, false);
  assertEquals(observed.trace, undefined);
  observed.finish(EVENT, "{}");
});

Deno.test("observeCall() without an SDK still audits and passes a caller's trace context on", async () => {
  const records: AuditRecord[] = [];
  const audited = observeCall(undefined, {
    name: "echo",
    options: {},
    settings: {
      audit: { write: (r) => void records.push(r) },
    },
  });
  assertEquals(audited.needsEvent, true);
  await audited.finish(EVENT, '{"a":1}');
  assertEquals(records.length, 1);
  assertEquals(records[0].tool, "echo");
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const traced = observeCall(undefined, {
    name: "echo",
    options: { traceparent, baggage: "k=v" },
    settings: {},
  });
  assertEquals(traced.needsEvent, true);
  assertMatch(traced.trace?.traceparent ?? "", /^00-0af7651916cd43dd8448eb211c80319c-/);
  assertEquals(traced.trace?.baggage, "k=v");
});

Deno.test("tracingIsOff() follows a tracer provider registered after calls ran, and its removal", () => {
  assertEquals(tracingIsOff(), true);
  const provider: TracerProvider = { getTracer: () => trace.getTracer("unused") };
  assert(trace.setGlobalTracerProvider(provider));
  try {
    assertEquals(tracingIsOff(), false);
  } finally {
    trace.disable();
  }
  assertEquals(tracingIsOff(), true);
});
