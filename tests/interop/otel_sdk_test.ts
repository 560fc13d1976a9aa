// The OpenTelemetry SDK reads OTEL_* variables, so these tests run with the Deno suite (--allow-env).
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import { z } from "zod";
import { metrics, SpanKind, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { defineTool, ToolRouter } from "../../mod.ts";
import { McpGateway, type McpTransport, ToolSetServer } from "../../src/core/mcp/mod.ts";
import { Client } from "../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

/** serve (ToolSetServer) → router → gateway → an upstream SDK server that records `_meta`. */
async function chain() {
  const received: Record<string, unknown>[] = [];
  const upstream = async () => {
    const server = new McpServer({ name: "up", version: "1.0.0" });
    server.registerTool("lookup", { inputSchema: { q: z.string() } }, ({ q }, extra) => {
      received.push({ ...(extra.mcpReq._meta ?? {}) });
      return { content: [{ type: "text", text: `found ${q}` }] };
    });
    const [client, side] = InMemoryTransport.createLinkedPair();
    await server.connect(side);
    return client as unknown as McpTransport;
  };
  const gateway = new McpGateway({
    servers: { docs: { url: "http://127.0.0.1:1/mcp" } },
    transportFactory: upstream,
  });
  const router = new ToolRouter({ gateway });
  const served = new ToolSetServer(() => router.expose({ mcpServers: ["docs"] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await served.connect(serverSide);
  const client = new Client({ name: "caller", version: "1.0.0" });
  await client.connect(clientSide);
  const close = async () => {
    await client.close();
    await served.close();
    await gateway.close();
  };
  return { client, received, close };
}

Deno.test("a trace crosses serve → gateway → upstream: execute_tool and tools/call spans, traceparent in _meta both ways", async () => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  const { client, received, close } = await chain();
  try {
    const result = await client.callTool({
      name: "lookup",
      arguments: { q: "otel" },
      _meta: { traceparent: TRACEPARENT, tracestate: "vendor=abc", baggage: "tenant=acme" },
    });
    assertEquals((result.content as { text: string }[])[0].text, "found otel");
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((span) => span.name === "execute_tool lookup");
    const remote = spans.find((span) => span.name === "tools/call lookup");
    if (!tool || !remote) throw new Error(`spans: ${spans.map((span) => span.name)}`);
    // The tool span continues the caller's trace; the remote span is its child.
    assertEquals(tool.spanContext().traceId, TRACE_ID);
    assertEquals(tool.parentSpanContext?.spanId, CALLER_SPAN);
    assertEquals(remote.parentSpanContext?.spanId, tool.spanContext().spanId);
    assertEquals(remote.kind, SpanKind.CLIENT);
    assertEquals(tool.attributes["gen_ai.operation.name"], "execute_tool");
    assertEquals(tool.attributes["gen_ai.tool.name"], "lookup");
    assertEquals(tool.attributes["gen_ai.tool.type"], "extension");
    assert(typeof tool.attributes["gen_ai.tool.call.id"] === "string");
    assertEquals(remote.attributes["mcp.method.name"], "tools/call");
    // The upstream got the remote span's context, and the caller's tracestate.
    assertEquals(received.length, 1);
    assertEquals(
      received[0].traceparent,
      `00-${TRACE_ID}-${remote.spanContext().spanId}-01`,
    );
    assertEquals(received[0].tracestate, "vendor=abc");
    assertEquals(received[0].baggage, "tenant=acme");
  } finally {
    await close();
    trace.disable();
  }
});

Deno.test("without an OpenTelemetry SDK the caller's traceparent still reaches the upstream", async () => {
  const { client, received, close } = await chain();
  try {
    await client.callTool({
      name: "lookup",
      arguments: { q: "x" },
      _meta: { traceparent: TRACEPARENT, baggage: "tenant=acme" },
    });
    await client.callTool({ name: "lookup", arguments: { q: "y" } });
    assertEquals(received[0].traceparent, TRACEPARENT);
    assertEquals(received[0].baggage, "tenant=acme");
    // No trace came in and nothing traces: no traceparent is made up.
    assertEquals(received[1].traceparent, undefined);
  } finally {
    await close();
  }
});

Deno.test("a failed call's span is an error with error.type, and calls are counted and timed as metrics", async () => {
  const spans = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  try {
    const fail = defineTool({
      name: "fail",
      description: "Fails",
      input: z.object({}),
      run: () => {
        throw new Error("no");
      },
    });
    const toolSet = await new ToolRouter({ functions: [fail] }).expose({ functions: ["fail"] });
    await toolSet.call("fail", "{}", { toolCallId: "call_1" });
    await toolSet.call("fail", "{}");
    await toolSet.call("nope", "{}");
    const failed = spans.getFinishedSpans().filter((span) => span.name === "execute_tool fail");
    assertEquals(failed.length, 2);
    assertEquals(failed[0].attributes["error.type"], "tool_error");
    assertEquals(failed[0].attributes["gen_ai.tool.call.id"], "call_1");
    assertEquals(failed[0].status.code, 2);
    await reader.forceFlush();
    const all = exporter.getMetrics().flatMap((m) => m.scopeMetrics).flatMap((s) => s.metrics);
    const calls = all.find((m) => m.descriptor.name === "toolroute.tool.calls");
    const duration = all.find((m) => m.descriptor.name === "toolroute.tool.call.duration");
    if (!calls || !duration) throw new Error("metrics missing");
    const counted = calls.dataPoints.map((p) => [p.attributes["gen_ai.tool.name"], p.value]);
    assertEquals(counted, [["fail", 2], ["nope", 1]]);
    assertEquals(duration.descriptor.unit, "s");
    assertNotEquals(duration.dataPoints.length, 0);
  } finally {
    trace.disable();
    metrics.disable();
  }
});
