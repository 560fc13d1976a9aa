/**
 * Attacks on the seam of the Tasks extension (2026-07-28), era verdicts and per-user pools: a
 * server that offers the extension to one user's credentials only, a server that answers with a
 * task it never offered, and a server whose offer changes between connects while a task runs.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { createMcpHandler, McpServer, ProtocolError } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import { Client } from "@modelcontextprotocol/client";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import {
  declaresTasks,
  listenRestartable,
  serveTransport,
  TASKS,
} from "../../_helpers/task_server_parts.ts";

/** One request the server saw: whose token, which method, and for `tools/call` what it declared. */
interface Seen {
  who: string;
  method: string;
  declares?: boolean;
  taskId?: string;
}

/**
 * A modern-only server. Whether its capabilities name the Tasks extension is asked of `offers`
 * per request (by the caller's token). `report` answers with a task only to a call that declares
 * the extension and is offered it, and runs inline otherwise (a compliant server); `rogue`
 * answers with a task that never ends whatever was declared (a hostile server). `tasks/get`
 * refuses a task to anyone but the token that started it.
 */
function startServer(taskMs: number, offers: { to: (who: string) => boolean }) {
  const seen: Seen[] = [];
  const tasks = new Map<string, { owner: string; startedAt: number; cancelled: boolean }>();
  const stamp = (taskId: string, status: string) => ({
    taskId,
    status,
    createdAt: new Date().toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 100,
  });
  const handler = createMcpHandler((ctx) => {
    const who = ctx.requestInfo?.headers.get("authorization") ?? "anonymous";
    const offered = offers.to(who);
    const server = new McpServer({ name: "tasks", version: "1.0.0" }, {
      capabilities: offered ? { extensions: { [TASKS]: {} } } : {},
    });
    server.registerTool("report", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.registerTool("rogue", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.server.setRequestHandler("tools/call", (request, ctx) => {
      const declares = declaresTasks(ctx.mcpReq.envelope);
      const rogue = request.params.name === "rogue";
      if (!rogue && !(declares && offered)) {
        seen.push({ who, method: "tools/call", declares });
        return { content: [{ type: "text", text: `inline for ${who}` }] };
      }
      const taskId = `task-${tasks.size + 1}`;
      seen.push({ who, method: "tools/call", declares, taskId });
      tasks.set(taskId, { owner: who, startedAt: rogue ? Infinity : Date.now(), cancelled: false });
      return { resultType: "task", ...stamp(taskId, "working") } as never;
    });
    const params = { params: z.looseObject({ taskId: z.string() }) };
    server.server.setRequestHandler("tasks/get", params, ({ taskId }) => {
      seen.push({ who, method: "tasks/get", taskId });
      const task = tasks.get(taskId);
      if (task === undefined || task.owner !== who) {
        throw new ProtocolError(-32602, "not your task");
      }
      if (task.cancelled) return stamp(taskId, "cancelled") as never;
      if (Date.now() - task.startedAt < taskMs) return stamp(taskId, "working") as never;
      return {
        ...stamp(taskId, "completed"),
        result: { content: [{ type: "text", text: `${taskId} for ${who}` }] },
      } as never;
    });
    server.server.setRequestHandler("tasks/cancel", params, ({ taskId }) => {
      seen.push({ who, method: "tasks/cancel", taskId });
      const task = tasks.get(taskId);
      if (task !== undefined && task.owner === who) task.cancelled = true;
      return {} as never;
    });
    return server;
  }, { legacy: "reject" });
  const listener = listenRestartable((request) => handler.fetch(request), (message, request) => {
    if (message.method === "server/discover") {
      seen.push({ who: request.headers.get("authorization") ?? "", method: "server/discover" });
    }
  });
  return {
    url: listener.url,
    seen,
    tasks,
    restart: listener.restart,
    async close() {
      await handler.close();
      await listener.close();
    },
  };
}

const ANA = "Bearer secret-of-ana";
const BO = "Bearer secret-of-bo";

function usersGateway(url: string, options: ConstructorParameters<typeof McpGateway>[0] = {}) {
  const gateway = new McpGateway(options);
  for (const [user, token] of [["ana", ANA], ["bo", BO]]) {
    gateway.addUserServer(user, "crm", { url, headers: { Authorization: token } });
  }
  return new ToolRouter({ gateway });
}

Deno.test("a server that offers tasks to one user's token only is told the gateway follows tasks on that user's calls only, across reconnects from kept verdicts", async () => {
  const server = startServer(200, { to: (who) => who === ANA });
  // One pooled connection at a time: every switch of user evicts the other's connection, so
  // each call after the first two connects again from its user's kept era verdict.
  const router = usersGateway(server.url, { maxUserConnections: 1 });
  try {
    const texts: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const user of ["bo", "ana"]) {
        const tools = await router.expose({ mcpServers: ["crm"], userId: user });
        const result = await tools.call("report", {});
        assertEquals(result.isError, false, result.text);
        texts.push(result.text);
      }
    }
    const calls = server.seen.filter((s) => s.method === "tools/call");
    assertEquals(calls.length, 6, JSON.stringify(server.seen));
    // Bo's token was never offered the extension: none of bo's calls declared it.
    assertEquals(calls.filter((c) => c.who === BO).map((c) => c.declares), [false, false, false]);
    // Ana's every call declared it, the first and those from her kept verdict.
    assertEquals(calls.filter((c) => c.who === ANA).map((c) => c.declares), [true, true, true]);
    // The reconnects really came from kept verdicts: each user was discovered once.
    const discovers = server.seen.filter((s) => s.method === "server/discover");
    assertEquals(discovers.map((d) => d.who).sort(), [ANA, BO], JSON.stringify(discovers));
    // Ana's tasks were polled on her token only; bo ran inline.
    const polls = server.seen.filter((s) => s.method === "tasks/get");
    assert(polls.length >= 3, JSON.stringify(polls));
    assert(polls.every((p) => p.who === ANA), JSON.stringify(polls));
    assertEquals(texts.filter((t) => /inline/.test(t)).length, 3, texts.join());
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a task answer from a server that never offered tasks ends with the call's deadline, is cancelled, and is polled no more", async () => {
  const server = startServer(0, { to: () => false });
  const router = usersGateway(server.url);
  try {
    const tools = await router.expose({ mcpServers: ["crm"], userId: "bo" });
    const started = performance.now();
    const result = await tools.call("rogue", {}, { timeoutMs: 800 });
    const took = performance.now() - started;
    // The server really answered with a task nobody asked for, and it was polled.
    const call = server.seen.find((s) => s.method === "tools/call");
    assertEquals(call?.declares, false, "the extension was not declared");
    assertEquals(call?.taskId, "task-1");
    assert(server.seen.some((s) => s.method === "tasks/get"), JSON.stringify(server.seen));
    // The call ends at its deadline, as a timeout, and the task is cancelled.
    assertEquals(result.code, "timeout", result.text);
    assert(took < 3_000, `took ${took} ms`);
    // Waited for, not timed: a loaded machine may take a while to send the cancel.
    for (let i = 0; i < 500 && !server.tasks.get("task-1")?.cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(server.tasks.get("task-1")?.cancelled, true);
    // No poll after the call ended.
    const polls = server.seen.filter((s) => s.method === "tasks/get").length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    assertEquals(server.seen.filter((s) => s.method === "tasks/get").length, polls);
    // Every request of the task was bo's.
    assert(server.seen.every((s) => s.who === BO), JSON.stringify(server.seen));
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a server that stops offering tasks while one runs, then offers them again, completes the task and answers every later call", async () => {
  const offers = { now: true, to: (_who: string) => offers.now };
  const server = startServer(900, offers);
  const router = usersGateway(server.url, { reconnect: { initialDelayMs: 50 } });
  try {
    const tools = await router.expose({ mcpServers: ["crm"], userId: "ana" });
    // The server restarts without the extension while ana's task runs (its task store kept): once
    // the task exists, not after a fixed time a loaded machine may outlast before the call.
    const restarted = (async () => {
      while (server.tasks.size === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      offers.now = false;
      await server.restart(300);
    })();
    const first = await tools.call("report", {});
    await restarted;
    assertEquals(first.isError, false, first.text);
    assert(first.text.includes("task-1"), first.text);
    // A later call: whatever the gateway declares, the server that no longer offers runs it inline.
    const second = await tools.call("report", {}, { timeoutMs: 3_000 });
    assertEquals(second.isError, false, second.text);
    assert(/inline/.test(second.text), second.text);
    // Offered again: the call still ends with a result (a task, or inline from a kept verdict).
    offers.now = true;
    await server.restart(50);
    const third = await tools.call("report", {}, { timeoutMs: 3_000 });
    assertEquals(third.isError, false, third.text);
    const calls = server.seen.filter((s) => s.method === "tools/call");
    assertEquals(calls.length, 3, JSON.stringify(server.seen));
    assert(server.seen.every((s) => s.who === ANA), JSON.stringify(server.seen));
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a user's server re-added with other credentials is discovered again, not connected from the old credentials' verdict", async () => {
  const server = startServer(100, { to: (who) => who === ANA });
  const gateway = new McpGateway();
  const router = new ToolRouter({ gateway });
  try {
    // First on a token the server does not offer tasks to.
    gateway.addUserServer("ana", "crm", { url: server.url, headers: { Authorization: BO } });
    let tools = await router.expose({ mcpServers: ["crm"], userId: "ana" });
    const before = await tools.call("report", {});
    assertEquals(before.isError, false, before.text);
    // The user's server is replaced: same id and URL, her own token, which is offered tasks.
    await gateway.removeUserServer("ana", "crm");
    gateway.addUserServer("ana", "crm", { url: server.url, headers: { Authorization: ANA } });
    tools = await router.expose({ mcpServers: ["crm"], userId: "ana" });
    const after = await tools.call("report", {});
    assertEquals(after.isError, false, after.text);
    const calls = server.seen.filter((s) => s.method === "tools/call");
    assertEquals(calls.map((c) => [c.who, c.declares]), [[BO, false], [ANA, true]]);
    // The new credentials were asked what the server offers them.
    const discovers = server.seen.filter((s) => s.method === "server/discover");
    assertEquals(discovers.map((d) => d.who), [BO, ANA], JSON.stringify(server.seen));
    assert(/task-1/.test(after.text), after.text);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a global server re-added with other credentials, and a cleared user's server re-added, are discovered again", async () => {
  const server = startServer(100, { to: (who) => who === ANA });
  const gateway = new McpGateway({
    servers: { crm: { url: server.url, headers: { Authorization: BO } } },
  });
  const router = new ToolRouter({ gateway });
  try {
    const call = async (userId?: string) => {
      const tools = await router.expose({ mcpServers: ["crm"], ...(userId ? { userId } : {}) });
      const result = await tools.call("report", {});
      assertEquals(result.isError, false, result.text);
    };
    await call();
    await gateway.removeServer("crm");
    gateway.addServer("crm", { url: server.url, headers: { Authorization: ANA } });
    await call();
    // A user's own server, the user cleared and added again with other credentials.
    gateway.addUserServer("cy", "own", { url: server.url, headers: { Authorization: BO } });
    const own = async () => {
      const tools = await router.expose({ mcpServers: ["own"], userId: "cy" });
      const result = await tools.call("report", {});
      assertEquals(result.isError, false, result.text);
    };
    await own();
    await gateway.clearUser("cy");
    gateway.addUserServer("cy", "own", { url: server.url, headers: { Authorization: ANA } });
    await own();
    const calls = server.seen.filter((s) => s.method === "tools/call");
    assertEquals(calls.map((c) => [c.who, c.declares]), [
      [BO, false],
      [ANA, true],
      [BO, false],
      [ANA, true],
    ]);
    const discovers = server.seen.filter((s) => s.method === "server/discover");
    assertEquals(discovers.map((d) => d.who), [BO, ANA, BO, ANA], JSON.stringify(server.seen));
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a serve client that abandons its call while the upstream task runs gets the task cancelled, and no poll goes on", async () => {
  const server = startServer(60_000, { to: () => true });
  const gateway = new McpGateway({ servers: { work: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["work"] });
  const serving = serveTransport(toolSet);
  const client = new Client({ name: "modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(serving.transport);
    const abandon = new AbortController();
    const call = client.callTool({ name: "report", arguments: {} }, { signal: abandon.signal });
    // Abandoned once the upstream task is being polled.
    for (let i = 0; i < 500 && !server.seen.some((s) => s.method === "tasks/get"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert(server.seen.some((s) => s.method === "tasks/get"), JSON.stringify(server.seen));
    abandon.abort();
    await call.catch(() => {});
    for (let i = 0; i < 500 && !server.tasks.get("task-1")?.cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(server.tasks.get("task-1")?.cancelled, true, JSON.stringify(server.seen));
    const polls = server.seen.filter((s) => s.method === "tasks/get").length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    assertEquals(server.seen.filter((s) => s.method === "tasks/get").length, polls);
    // Nor can a serve client poll an upstream task by its id: serve is no task proxy.
    const asked = await client.request(
      { method: "tasks/get", params: { taskId: "task-1" } },
      z.looseObject({}),
    ).then(() => "answered", (error: Error) => error.message);
    assert(asked !== "answered", asked);
    assertEquals(server.seen.filter((s) => s.method === "tasks/get").length, polls);
  } finally {
    await client.close();
    await serving.close();
    await router.close();
    await server.close();
  }
});
