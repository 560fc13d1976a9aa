// Attacks of a hostile mounted server on the in-process client: answers with another call's id,
// two answers, a result that is not an object, progress for another call, a flood of
// notifications and requests of its own, answers after close.
import { assert, assertEquals, assertRejects } from "@std/assert";
import { InProcessMcpClient } from "../../../src/core/mcp/in_process_client.ts";
import { McpErrorCode, McpRpcError } from "../../../src/core/mcp/mcp_error_code.ts";
import type { McpJsonRpcMessage } from "../../../src/core/mcp/mcp_transport.ts";

interface Side {
  onmessage?: (message: McpJsonRpcMessage) => void;
  send(message: McpJsonRpcMessage): Promise<void>;
}

/** A raw server: answers `initialize`, hands every other request to `onRequest`. */
function hostile(onRequest: (message: McpJsonRpcMessage, side: Side) => void) {
  const seen: McpJsonRpcMessage[] = [];
  return {
    seen,
    connect(transport: unknown): Promise<void> {
      const side = transport as Side;
      side.onmessage = (message) => {
        seen.push(message);
        if (message.method === "initialize") {
          void side.send({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "h", version: "1" },
            },
          });
        } else if (message.id !== undefined && message.method !== undefined) {
          onRequest(message, side);
        }
      };
      return Promise.resolve();
    },
  };
}

const call = (client: InProcessMcpClient, text: string, options = {}) =>
  client.callTool({ name: "t", arguments: { text } }, { timeout: 1000, ...options });

Deno.test("answers swapped between two concurrent calls, doubled, and for unknown ids never reach the wrong call twice or crash", async () => {
  const waiting: McpJsonRpcMessage[] = [];
  let answered = 0;
  const server = hostile((message, side) => {
    waiting.push(message);
    if (waiting.length < 2) return;
    const [a, b] = waiting.splice(0);
    const text = (m: McpJsonRpcMessage) =>
      (m.params as { arguments: { text: string } }).arguments.text;
    for (
      const [id, t] of [[999, "nobody"], [b.id, text(b)], [b.id, "again"], [a.id, text(a)], [
        "x",
        "odd",
      ]] as const
    ) {
      answered++;
      void side.send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: t }] } });
    }
  });
  const client = await InProcessMcpClient.connect(server);
  const [ra, rb] = await Promise.all([call(client, "alice"), call(client, "bob")]);
  assert(answered > 0);
  assertEquals(ra.content, [{ type: "text", text: "alice" }]);
  assertEquals(rb.content, [{ type: "text", text: "bob" }]);
  await client.close();
});

Deno.test("a result that is not an object, null or an array is an error of the call, not a result", async () => {
  let sent = 0;
  for (const result of ["smuggled", 42, null, [1, 2], true]) {
    const client = await InProcessMcpClient.connect(hostile((message, side) => {
      sent++;
      void side.send({ jsonrpc: "2.0", id: message.id, result } as McpJsonRpcMessage);
    }));
    const outcome = await call(client, "x").then((r) => r, (e) => e);
    assert(
      outcome instanceof McpRpcError ||
        (typeof outcome === "object" && !Array.isArray(outcome) && outcome !== null),
      JSON.stringify(outcome),
    );
    if (!(outcome instanceof McpRpcError)) {
      assertEquals(typeof (outcome as Record<string, unknown>).content, "undefined");
    }
    await client.close();
  }
  assert(sent > 0);
});

Deno.test("progress sent for another call does not keep that call alive, and a flood of notifications and requests is answered without a crash", async () => {
  let flood = 0;
  const client = await InProcessMcpClient.connect(hostile((message, side) => {
    // Never answers; progress for every id but this call's, list changes and requests of its own.
    const timer = setInterval(() => {
      for (let i = 0; i < 100; i++) {
        flood++;
        void side.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: (message.id as number) + 1 + i, progress: 1 },
        });
        void side.send({
          jsonrpc: "2.0",
          id: `srv-${flood}`,
          method: "sampling/createMessage",
          params: {},
        });
        void side.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
    }, 10);
    setTimeout(() => clearInterval(timer), 600);
  }));
  let changed = 0;
  client.onToolsChanged = () => changed++;
  const started = performance.now();
  const error = await assertRejects(
    () => call(client, "x", { timeout: 300, resetTimeoutOnProgress: true, onprogress: () => {} }),
    McpRpcError,
  );
  assertEquals(error.code, McpErrorCode.RequestTimeout);
  assert(performance.now() - started < 600);
  assert(flood > 0 && changed > 0);
  await new Promise((resolve) => setTimeout(resolve, 400));
  await client.close();
});

Deno.test("answers after close and a server that answers the cancellation are ignored", async () => {
  let side: Side | undefined;
  let pendingId: unknown;
  const client = await InProcessMcpClient.connect(hostile((message, s) => {
    side = s;
    pendingId = message.id;
  }));
  const pending = call(client, "x");
  await new Promise((resolve) => setTimeout(resolve, 10));
  await client.close();
  await assertRejects(() => pending, McpRpcError);
  assert(side !== undefined);
  await side!.send({ jsonrpc: "2.0", id: pendingId as number, result: { content: [] } });
  await assertRejects(() => call(client, "y"), McpRpcError);
});
