import { delay } from "@std/async";
import * as z from "zod";
import type { Client, JSONRPCMessage, Transport } from "../../mcp_sdk.ts";
import { McpRpcError } from "../../mcp_error_code.ts";

/** What a task call needs of its connection. */
export interface TaskCallHost {
  /** A ready client: the one in use, or a new one after a lost connection. */
  ready(signal: AbortSignal): Promise<Client>;
  /**
   * Whether a failed poll may be asked again (its request or answer was lost); the host drops a
   * broken client here, so the next `ready` opens a new one.
   */
  undelivered(error: unknown, client: Client): boolean;
}

/** Options of {@linkcode callAsTask}. */
export interface TaskCallOptions {
  /** Ends the call (and cancels the task on the server, best effort). */
  signal: AbortSignal;
  /** Deadline of each request (create, poll, result), in milliseconds. */
  requestTimeoutMs: number;
  /** How long the server keeps the task, in milliseconds. */
  ttlMs: number;
  /** Seen once with the task's id, for tests and events. */
  onTask?: (taskId: string) => void;
}

const TaskSchema = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: z.string(),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});
const CreatedSchema = z.looseObject({ task: TaskSchema });
const ResultSchema = z.looseObject({});

/** A task as the 2026-07-28 Tasks extension has it (`tasks/get`, or the handle a call answered). */
const ModernTaskSchema = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: z.string(),
  pollIntervalMs: z.number().optional(),
  statusMessage: z.string().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional() })
    .optional(),
});

/** A task handle a modern server answered a `tools/call` with (see {@linkcode createdTaskOf}). */
export type CreatedTask = z.infer<typeof ModernTaskSchema>;

/** Polling bounds: the server's `pollInterval` is kept within them. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
/** Most consecutive polls that could not be delivered (the server is gone for good). */
const MAX_UNDELIVERED = 8;

/**
 * Calls a tool that runs as a task (`execution.taskSupport`, the 2025-11-25 tasks): `tools/call`
 * with a `task` asks the server to start it, `tasks/get` polls its status at the server's
 * interval, and `tasks/result` fetches the tool's result once it ended. The task outlives the
 * connection: a poll that cannot be delivered (a lost connection) waits for a new one and goes on
 * with the same task, so a reconnect does not start the work again.
 *
 * @param host The connection.
 * @param call The tool's name and arguments.
 * @param options Signal, deadlines and the task's lifetime.
 * @returns The tool's result as the server sent it (a `CallToolResult` to check).
 */
export async function callAsTask(
  host: TaskCallHost,
  call: { name: string; arguments: Record<string, unknown> },
  options: TaskCallOptions,
): Promise<unknown> {
  const { signal } = options;
  const request = { signal, timeout: options.requestTimeoutMs };
  const client = await host.ready(signal);
  const created = await client.request(
    {
      method: "tools/call",
      params: { ...call, task: { ttl: options.ttlMs } },
    },
    CreatedSchema,
    request,
  );
  const taskId = created.task.taskId;
  options.onTask?.(taskId);
  let task = created.task;
  const cancel = () => void cancelTask(host, taskId);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    let undelivered = 0;
    while (task.status === "working" || task.status === "submitted") {
      const pollMs = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? 500));
      await delay(pollMs, { signal });
      const polling = await reconnected(host, signal);
      if (polling === undefined) {
        if (++undelivered > MAX_UNDELIVERED) throw new Error(UNREACHABLE);
        continue;
      }
      try {
        task = await polling.request(
          {
            method: "tasks/get",
            params: { taskId },
          },
          TaskSchema,
          request,
        );
        undelivered = 0;
      } catch (error) {
        if (
          signal.aborted || !host.undelivered(error, polling) || ++undelivered > MAX_UNDELIVERED
        ) {
          throw error;
        }
      }
    }
    if (task.status !== "completed" && task.status !== "failed") {
      throw new Error(
        `The server's task for tool "${call.name}" ended as "${task.status.slice(0, 40)}"`,
      );
    }
    return await (await host.ready(signal)).request(
      {
        method: "tasks/result",
        params: { taskId },
      },
      ResultSchema,
      request,
    );
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** The identifier of the Tasks extension of the 2026-07-28 revision. */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The error data objects made by {@linkcode surfaceTaskAnswers}: a server cannot forge one. */
const surfaced = new WeakSet<object>();

/**
 * Lets a modern connection's calls run as tasks (the Tasks extension of 2026-07-28). Each
 * `tools/call` sent declares the extension in its per-request client capabilities (only there:
 * a 2025 connection never declares what it could not follow). SDK 2.4.0 has no runtime for the
 * extension: its client rejects a `tools/call` answered with `resultType: "task"` as an
 * unsupported result and keeps nothing of it, so the handle is turned into an error answer to that
 * request here, whose data {@linkcode createdTaskOf} finds, and the call goes on by polling.
 *
 * @param transport The connected transport (its `onmessage` is the client's, set on connect).
 */
export function surfaceTaskAnswers(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(declaringTasks(message), options);
  transport.onmessage = (message, extra) => {
    const result = (message as { result?: { resultType?: unknown } }).result;
    if (result?.resultType !== "task") return deliver(message, extra);
    const data = { task: result };
    surfaced.add(data);
    const { id } = message as { id: string | number };
    const error = { code: TASK_ANSWER_CODE, message: "The server answered with a task", data };
    deliver({ jsonrpc: "2.0", id, error } as JSONRPCMessage, extra);
  };
}

/** A `tools/call` request with the Tasks extension added to its per-request client capabilities. */
function declaringTasks(message: JSONRPCMessage): JSONRPCMessage {
  const request = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (request.method !== "tools/call" || request.params === undefined) return message;
  const meta = request.params._meta ?? {};
  const capabilities = (meta[CAPABILITIES_KEY] ?? {}) as { extensions?: Record<string, unknown> };
  return {
    ...message,
    params: {
      ...request.params,
      _meta: {
        ...meta,
        [CAPABILITIES_KEY]: {
          ...capabilities,
          extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} },
        },
      },
    },
  } as JSONRPCMessage;
}

/** Where a 2026-07-28 request carries its client capabilities. */
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The JSON-RPC code of a surfaced task answer (never sent: it only travels inside the client). */
const TASK_ANSWER_CODE = -32099;

/**
 * The task handle a call was answered with, when what it threw is one (see
 * {@linkcode surfaceTaskAnswers}); `undefined` otherwise, or when the handle is malformed.
 *
 * @param error What a call threw (a `ToolError` whose cause is the client's error, or that error).
 * @returns The task.
 */
export function createdTaskOf(error: unknown): CreatedTask | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const data = (e as { data?: unknown }).data;
    if (typeof data === "object" && data !== null && surfaced.has(data)) {
      const parsed = ModernTaskSchema.safeParse((data as { task: unknown }).task);
      return parsed.success ? parsed.data : undefined;
    }
  }
  return undefined;
}

/**
 * Waits for a task of the 2026-07-28 Tasks extension that a call was answered with: `tasks/get`
 * polls it at the server's interval until it ends, and its last answer carries the tool's result
 * (there is no `tasks/result` in this era). Like {@linkcode callAsTask}, a poll that cannot be
 * delivered waits for a new connection and goes on with the same task. A task that asks for input
 * (`input_required`) is cancelled: toolroute does not relay a task's input requests yet.
 *
 * @param host The connection.
 * @param created The task handle the call was answered with.
 * @param options Signal and deadlines (`ttlMs` is the server's to choose in this era).
 * @returns The tool's result as the server sent it (a `CallToolResult` to check).
 */
export async function awaitCreatedTask(
  host: TaskCallHost,
  created: CreatedTask,
  options: Omit<TaskCallOptions, "ttlMs">,
): Promise<unknown> {
  const { signal } = options;
  const { taskId } = created;
  options.onTask?.(taskId);
  const cancel = () => void cancelTask(host, taskId);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    let task = created;
    let undelivered = 0;
    while (task.status === "working") {
      const pollMs = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs ?? 500));
      await delay(pollMs, { signal });
      const polling = await reconnected(host, signal);
      if (polling === undefined) {
        if (++undelivered > MAX_UNDELIVERED) throw new Error(UNREACHABLE);
        continue;
      }
      try {
        task = await polling.request(
          { method: "tasks/get", params: { taskId } },
          ModernTaskSchema,
          { signal, timeout: options.requestTimeoutMs },
        );
        undelivered = 0;
      } catch (error) {
        if (
          signal.aborted || !host.undelivered(error, polling) || ++undelivered > MAX_UNDELIVERED
        ) {
          throw error;
        }
      }
    }
    if (task.status === "completed" && task.result !== undefined) return task.result;
    if (task.status === "failed" && task.error !== undefined) {
      const { code, message } = task.error;
      throw new McpRpcError(
        typeof code === "number" ? code : -32603,
        (message ?? "The task failed").slice(0, 2000),
      );
    }
    if (task.status === "input_required") void cancelTask(host, taskId);
    throw new Error(
      task.status === "input_required"
        ? "The server's task asks for input, which toolroute does not relay for tasks; it was cancelled"
        : `The server's task ended as "${task.status.slice(0, 40)}" without a result`,
    );
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

const UNREACHABLE = "The server of the task could not be reached again while the task ran";

/**
 * A ready client for the next poll, or `undefined` when the server cannot be reached now (a
 * restart): the task outlives the connection, so the poll is tried again after its interval.
 */
async function reconnected(host: TaskCallHost, signal: AbortSignal): Promise<Client | undefined> {
  try {
    return await host.ready(signal);
  } catch (error) {
    if (signal.aborted || (error as { code?: unknown }).code !== "upstream_unavailable") {
      throw error;
    }
    return undefined;
  }
}

async function cancelTask(host: TaskCallHost, taskId: string): Promise<void> {
  try {
    const client = await host.ready(AbortSignal.timeout(5_000));
    await client.request({ method: "tasks/cancel", params: { taskId } }, ResultSchema, {
      timeout: 5_000,
    });
  } catch {
    // Best effort: the task ends with its lifetime anyway.
  }
}
