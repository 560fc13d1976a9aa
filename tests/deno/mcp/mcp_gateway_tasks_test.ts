import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";

/**
 * A 2025-11-25 server (raw JSON-RPC over HTTP, with sessions) whose `report` tool runs as a task
 * of `taskMs`: `tools/call` with `task` starts it, `tasks/get` tells its status, `tasks/result`
 * gives its result. `expireSessions()` forgets every session (a restart): the next request of an
 * old session gets 404, and the client must connect again.
 */
function startTaskServer(taskMs: number) {
  const methods: string[] = [];
  const sessions = new Set<string>();
  const tasks = new Map<string, { startedAt: number; cancelled: boolean }>();
  let serial = 0;
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = await request.json();
    methods.push(message.method ?? "(answer)");
    const session = request.headers.get("mcp-session-id");
    const answer = (result: unknown, headers: Record<string, string> = {}) =>
      Response.json({ jsonrpc: "2.0", id: message.id, result }, { headers });
    if (message.method === "initialize") {
      const id = `s${++serial}`;
      sessions.add(id);
      return answer({
        protocolVersion: "2025-11-25",
        capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
        serverInfo: { name: "tasks", version: "1.0.0" },
      }, { "mcp-session-id": id });
    }
    if (session === null || !sessions.has(session)) {
      return Response.json({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: "Session not found" },
      }, { status: 404 });
    }
    if (message.id === undefined) return new Response(null, { status: 202 });
    const now = Date.now();
    switch (message.method) {
      case "tools/list":
        return answer({
          tools: [{
            name: "report",
            inputSchema: { type: "object" },
            execution: { taskSupport: "required" },
          }],
        });
      case "tools/call": {
        if (message.params.task === undefined) {
          return Response.json({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32600, message: "report runs as a task" },
          });
        }
        const taskId = `task-${tasks.size + 1}`;
        tasks.set(taskId, { startedAt: now, cancelled: false });
        return answer({ task: taskOf(taskId, "working", now) });
      }
      case "tasks/get": {
        const task = tasks.get(message.params.taskId)!;
        const done = now - task.startedAt >= taskMs;
        return answer(
          taskOf(message.params.taskId, done ? "completed" : "working", task.startedAt),
        );
      }
      case "tasks/result":
        return answer({ content: [{ type: "text", text: `report of ${message.params.taskId}` }] });
      case "tasks/cancel":
        tasks.get(message.params.taskId)!.cancelled = true;
        return answer(taskOf(message.params.taskId, "cancelled", now));
      default:
        return Response.json({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32601, message: "Method not found" },
        });
    }
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    methods,
    tasks,
    expireSessions: () => sessions.clear(),
    close: () => http.shutdown(),
  };
}

function taskOf(taskId: string, status: string, createdAt: number) {
  return {
    taskId,
    status,
    createdAt: new Date(createdAt).toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttl: 60_000,
    pollInterval: 200,
  };
}

Deno.test("a tool that runs as a task completes through the task requests, across a reconnect", async () => {
  const server = startTaskServer(2_000);
  const gateway = new McpGateway({
    servers: { work: { url: server.url, protocol: "2025" } },
    reconnect: { initialDelayMs: 50 },
  });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    // The server restarts (forgets its sessions) while the task runs.
    setTimeout(() => server.expireSessions(), 700);
    const result = await tools.call("report", {});
    assertEquals(result.text, "report of task-1", result.text);
    assertEquals(server.methods.filter((m) => m === "tools/call").length, 1, "started once");
    assert(server.methods.filter((m) => m === "tasks/get").length >= 3, server.methods.join());
    assertEquals(server.methods.filter((m) => m === "tasks/result").length, 1);
    assertEquals(server.methods.filter((m) => m === "initialize").length, 2, "reconnected");
    assertEquals(server.tasks.size, 1);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a task call that is aborted cancels the task on the server", async () => {
  const server = startTaskServer(60_000);
  const gateway = new McpGateway({ servers: { work: { url: server.url, protocol: "2025" } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    const result = await tools.call("report", {}, { timeoutMs: 600 });
    assertEquals(result.code, "timeout", result.text);
    for (let i = 0; i < 50 && !server.tasks.get("task-1")?.cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(server.tasks.get("task-1")?.cancelled, true);
    assert(server.methods.includes("tasks/cancel"));
  } finally {
    await router.close();
    await server.close();
  }
});
