import { assertEquals } from "@std/assert";
import { trace } from "@opentelemetry/api";
import { carrierOf, contextFrom } from "../../../src/core/telemetry/trace_context.ts";

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

Deno.test("contextFrom() continues a valid traceparent and carrierOf() writes it back", () => {
  const span = trace.getSpanContext(contextFrom({ traceparent: TP, tracestate: "a=1,b=2" }));
  assertEquals(span?.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assertEquals(span?.isRemote, true);
  assertEquals(carrierOf(span!), { traceparent: TP, tracestate: "a=1,b=2" });
});

Deno.test("contextFrom() ignores malformed, all-zero and version ff traceparents", () => {
  for (
    const bad of [
      "garbage",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
    ]
  ) {
    assertEquals(trace.getSpanContext(contextFrom({ traceparent: bad })), undefined, bad);
  }
  assertEquals(trace.getSpanContext(contextFrom(undefined)), undefined);
});

Deno.test("carrierOf() gives nothing for an invalid span context (nothing traces)", () => {
  assertEquals(
    carrierOf({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
    undefined,
  );
});
