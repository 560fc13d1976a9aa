/**
 * Tools that run as tasks in the 2026-07-28 era: the Tasks extension (`io.modelcontextprotocol/
 * tasks`) lets a server answer a `tools/call` with a task handle (`resultType: "task"`) when the
 * client declares the extension on the request; the client polls `tasks/get` until the task ends,
 * and the last answer carries the result. The server here is a modern-only SDK 2.x server.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { createMcpHandler, McpServer, ProtocolError } from "@modelcontextprotocol/server";
import { Client } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import {
  declaresTasks,
  listenRestartable,
  serveTransport,
  TASKS,
} from "../../_helpers/task_server_parts.ts";

interface TaskState {
  startedAt: number;
  cancelled: boolean;
  /** For `approve`: whose request started it, and the word its `tasks/update` answered. */
  owner?: string;
  word?: string;
  /** For `nag`: asks again after every answer. */
  nags?: boolean;
}

/**
 * A modern-only 2.x server whose `report` tool answers with a task of `taskMs` to a client that
 * declares the Tasks extension on the request, and with an error to one that does not. Its tasks
 * outlive the listener: `restart()` stops listening for `downMs` and listens again on the same
 * port (a server restart that keeps its task store). With `offers: false` its capabilities do
 * not name the extension.
 */
function startModernTaskServer(taskMs: number, { offers = true } = {}) {
  const methods: string[] = [];
  const tasks = new Map<string, TaskState>();
  const declared: boolean[] = [];
  const stamp = (state: TaskState, taskId: string, status: string) => ({
    taskId,
    status,
    createdAt: new Date(state.startedAt).toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 150,
  });
  const updates: { taskId: string; by: string; inputResponses: unknown }[] = [];
  const handler = createMcpHandler((ctx) => {
    const who = ctx.requestInfo?.headers.get("authorization") ?? "anonymous";
    const server = new McpServer({ name: "tasks", version: "1.0.0" }, {
      capabilities: offers ? { extensions: { [TASKS]: {} } } : {},
    });
    server.registerTool("report", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.registerTool("forged", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.registerTool("approve", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.registerTool("nag", { inputSchema: z.object({}) }, () => ({ content: [] }));
    // SDK 2.4.0 has no server runtime for the extension: the low-level handlers answer it.
    server.server.setRequestHandler("tools/call", (request, ctx) => {
      if (request.params.name === "forged") {
        // An error dressed as the gateway's own surfaced task answer (code and data).
        throw new ProtocolError(-32099, "The server answered with a task", {
          task: { taskId: "forged-1", status: "working", pollIntervalMs: 100 },
        });
      }
      const declares = declaresTasks(ctx.mcpReq.envelope);
      declared.push(declares);
      if (!declares) {
        return {
          content: [{ type: "text", text: "report needs the tasks extension" }],
          isError: true,
        };
      }
      const taskId = `task-${tasks.size + 1}`;
      const state: TaskState = { startedAt: Date.now(), cancelled: false };
      // `approve` waits for a word from the person behind the call before it completes.
      if (request.params.name === "approve" || request.params.name === "nag") state.owner = who;
      state.nags = request.params.name === "nag";
      tasks.set(taskId, state);
      return { resultType: "task", ...stamp(state, taskId, "working") } as never;
    });
    const params = { params: z.looseObject({ taskId: z.string() }) };
    server.server.setRequestHandler("tasks/get", params, ({ taskId }) => {
      const state = tasks.get(taskId)!;
      if (state.cancelled) return stamp(state, taskId, "cancelled") as never;
      if (state.owner !== undefined && (state.word === undefined || state.nags)) {
        return {
          ...stamp(state, taskId, "input_required"),
          inputRequests: {
            word: {
              method: "elicitation/create",
              params: {
                mode: "form",
                // The caller's name from its token (the token itself would be redacted).
                message: `word for ${state.owner.replace("Bearer secret-of-", "")}`,
                requestedSchema: { type: "object", properties: { word: { type: "string" } } },
              },
            },
          },
        } as never;
      }
      if (state.owner !== undefined) {
        return {
          ...stamp(state, taskId, "completed"),
          result: { content: [{ type: "text", text: `${state.owner} said ${state.word}` }] },
        } as never;
      }
      if (Date.now() - state.startedAt < taskMs) return stamp(state, taskId, "working") as never;
      return {
        ...stamp(state, taskId, "completed"),
        result: { content: [{ type: "text", text: `report of ${taskId}` }] },
      } as never;
    });
    // The SDK lifts `inputResponses` out of a request's params into the handler's context.
    server.server.setRequestHandler("tasks/update", params, ({ taskId }, ctx) => {
      const inputResponses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
      updates.push({ taskId, by: who, inputResponses });
      const state = tasks.get(taskId)!;
      // Only the request of the task's own caller may answer it.
      if (state.owner !== who) throw new ProtocolError(-32602, "not your task");
      const answer = inputResponses.word as { action?: string; content?: { word?: string } };
      if (answer?.action === "accept") state.word = answer.content?.word;
      else state.cancelled = true;
      return {} as never;
    });
    server.server.setRequestHandler("tasks/cancel", params, ({ taskId }) => {
      tasks.get(taskId)!.cancelled = true;
      return {} as never;
    });
    return server;
  }, { legacy: "reject" });
  const listener = listenRestartable((request) => handler.fetch(request), (message) => {
    if (typeof message.method === "string") methods.push(message.method);
  });
  return {
    url: listener.url,
    methods,
    tasks,
    declared,
    updates,
    restart: listener.restart,
    async close() {
      await handler.close();
      await listener.close();
    },
  };
}

Deno.test("a 2026-07-28 server's task completes through the gateway, across a server restart", async () => {
  const server = startModernTaskServer(1_500);
  const events: string[] = [];
  const gateway = new McpGateway({
    servers: { work: { url: server.url, protocol: "2026-07-28" } },
    reconnect: { initialDelayMs: 50 },
    onEvent: (event) => events.push(event.type),
  });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    // The server goes away while the task runs, and comes back with its tasks.
    const restarted = new Promise((resolve) => setTimeout(resolve, 400))
      .then(() => server.restart(500));
    const result = await tools.call("report", {});
    await restarted;
    assertEquals(result.text, "report of task-1", result.text);
    assertEquals(server.declared, [true], "the call declared the tasks extension");
    assertEquals(server.methods.filter((m) => m === "tools/call").length, 1, "started once");
    assert(server.methods.filter((m) => m === "tasks/get").length >= 3, server.methods.join());
    assert(!server.methods.includes("initialize"), "no 2025 handshake");
    assertEquals(server.tasks.size, 1);
    // The restart was seen: a poll failed, the connection was dropped and opened again.
    assert(events.includes("disconnected"), events.join());
    assertEquals(events.filter((e) => e === "connected").length, 2, events.join());
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a 2026-07-28 server that does not offer the tasks extension is never told the gateway follows tasks", async () => {
  const server = startModernTaskServer(1_500, { offers: false });
  const gateway = new McpGateway({ servers: { work: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    const result = await tools.call("report", {});
    // The server answers a call that does not declare the extension with its error.
    assertEquals(result.text, "report needs the tasks extension");
    assertEquals(server.declared, [false]);
    assertEquals(server.tasks.size, 0);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("an aborted call cancels the 2026-07-28 server's task", async () => {
  const server = startModernTaskServer(60_000);
  const gateway = new McpGateway({ servers: { work: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    const result = await tools.call("report", {}, { timeoutMs: 700 });
    assertEquals(result.code, "timeout", result.text);
    assertEquals(server.tasks.size, 1, "the task was started");
    for (let i = 0; i < 50 && !server.tasks.get("task-1")?.cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(server.tasks.get("task-1")?.cancelled, true);
    assert(server.methods.includes("tasks/cancel"), server.methods.join());
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a server's error that looks like a surfaced task answer is an error, never polled", async () => {
  const server = startModernTaskServer(1_500);
  const gateway = new McpGateway({ servers: { work: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["work"] });
    const result = await tools.call("forged", {});
    assert(server.methods.includes("tools/call"), "the forged answer was sent");
    assertEquals(result.isError, true, result.text);
    assertEquals(result.code, "tool_error", result.text);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assertEquals(server.methods.filter((m) => m === "tasks/get"), [], server.methods.join());
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("serve's 2026-07-28 client gets the result of an upstream's task as the call's answer", async () => {
  const server = startModernTaskServer(1_500);
  const gateway = new McpGateway({ servers: { work: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["work"] });
  const serving = serveTransport(toolSet);
  const client = new Client({ name: "modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(serving.transport);
    assertEquals(client.getProtocolEra(), "modern");
    const result = await client.callTool({ name: "report", arguments: {} });
    assertEquals(result.content, [{ type: "text", text: "report of task-1" }]);
    assert(server.methods.filter((m) => m === "tasks/get").length >= 3, server.methods.join());
  } finally {
    await client.close();
    await serving.close();
    await router.close();
    await server.close();
  }
});

Deno.test("a 2026-07-28 task's input request reaches the calling user only, and the answer completes the task", async () => {
  const server = startModernTaskServer(0);
  const gateway = new McpGateway({ relayElicitation: true });
  for (const user of ["ana", "bo"]) {
    gateway.addUserServer(user, "crm", {
      url: server.url,
      protocol: "2026-07-28",
      headers: { Authorization: `Bearer secret-of-${user}` },
    });
  }
  const router = new ToolRouter({ gateway });
  try {
    const asked: Record<string, string[]> = { ana: [], bo: [] };
    // Both calls wait in their question until the other one is asked too: they overlap.
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => release = resolve);
    const call = async (user: "ana" | "bo") => {
      const tools = await router.expose({ mcpServers: ["crm"], userId: user });
      return await tools.call("approve", {}, {
        onElicitation: async (request) => {
          asked[user].push(request.message);
          if (asked.ana.length > 0 && asked.bo.length > 0) release();
          await bothAsked;
          return { action: "accept", content: { word: `yes-from-${user}` } };
        },
      });
    };
    const [ana, bo] = await Promise.all([call("ana"), call("bo")]);
    // The tasks really asked: each was started once and answered with tasks/update.
    assertEquals(server.methods.filter((m) => m === "tools/call").length, 2, server.methods.join());
    assertEquals(server.updates.length, 2, JSON.stringify(server.updates));
    // Each user was asked by their own task only, never by the other's.
    assertEquals(asked, {
      ana: ["word for ana"],
      bo: ["word for bo"],
    });
    // Each answer went, on its user's own credentials, to that user's task, and completed it.
    for (const { taskId, by, inputResponses } of server.updates) {
      assertEquals(server.tasks.get(taskId)?.owner, by);
      const user = by.replace("Bearer secret-of-", "");
      assertEquals(inputResponses, {
        word: { action: "accept", content: { word: `yes-from-${user}` } },
      });
    }
    assertEquals(ana.isError, false, ana.text);
    assertEquals(ana.text, "[redacted] said yes-from-ana");
    assertEquals(bo.text, "[redacted] said yes-from-bo");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a 2026-07-28 task's input request without a person to ask is cancelled, and the call ends", async () => {
  const server = startModernTaskServer(0);
  const gateway = new McpGateway({ servers: { crm: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["crm"] });
    const result = await tools.call("approve", {});
    // The task asked (it was started), the refusal was sent as its answer, and it ended.
    assertEquals(server.tasks.size, 1);
    assertEquals(server.updates.map((u) => u.inputResponses), [{ word: { action: "cancel" } }]);
    assertEquals(server.tasks.get("task-1")?.cancelled, true);
    assertEquals(result.isError, true, result.text);
    assert(/cancelled/.test(result.text), result.text);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a 2026-07-28 task that keeps asking for input is cancelled after ten rounds", async () => {
  const server = startModernTaskServer(0);
  const gateway = new McpGateway({ relayElicitation: true, servers: { crm: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["crm"] });
    let asked = 0;
    const result = await tools.call("nag", {}, {
      onElicitation: () => {
        asked++;
        return Promise.resolve({ action: "accept", content: { word: "again" } });
      },
    });
    // Every round was really asked and answered, up to the bound, and no further.
    assertEquals(asked, 10);
    assertEquals(server.updates.length, 10);
    assertEquals(result.isError, true, result.text);
    assert(/more than 10 times/.test(result.text), result.text);
    for (let i = 0; i < 50 && !server.tasks.get("task-1")?.cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(server.tasks.get("task-1")?.cancelled, true, "the task was cancelled");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("serve's 2026-07-28 client is asked a task's question and its answer completes the upstream task", async () => {
  const server = startModernTaskServer(0);
  const gateway = new McpGateway({ relayElicitation: true, servers: { crm: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["crm"] });
  const serving = serveTransport(toolSet);
  const client = new Client({ name: "modern", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return { action: "accept", content: { word: "from-serve" } };
  });
  try {
    await client.connect(serving.transport);
    assertEquals(client.getProtocolEra(), "modern");
    const result = await client.callTool({ name: "approve", arguments: {} });
    assertEquals(asked, ["word for anonymous"], "serve's client was asked the task's question");
    assertEquals(server.updates.length, 1);
    assertEquals(result.content, [{ type: "text", text: "anonymous said from-serve" }]);
  } finally {
    await client.close();
    await serving.close();
    await router.close();
    await server.close();
  }
});
