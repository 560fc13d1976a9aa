import { delay } from "@std/async";
import * as z from "zod";
import type { Client } from "../../mcp_sdk.ts";

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
      const polling = await host.ready(signal);
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
