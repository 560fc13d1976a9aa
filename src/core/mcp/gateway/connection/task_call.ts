import { delay } from "@std/async";
import * as z from "zod";
import type { ToolOutput } from "../../../tool_output.ts";
import { callDeadline } from "../calls/call_deadline.ts";
import { mcpErrorToToolError, toolOutputOf } from "../../mcp_call.ts";
import { McpErrorCode, mcpErrorCodeOf, McpRpcError } from "../../mcp_error_code.ts";
import type { Client } from "../../mcp_sdk.ts";
import type { CallingConnection, ToolCall } from "./guarded_call.ts";
import type { McpElicitationResult } from "../mcp_gateway_types.ts";
import { type CreatedTask, ModernTaskSchema } from "./task_answers.ts";
import { serverOf } from "./open_mcp_client.ts";

/**
 * Runs a call as a task, under the call's deadline and signal: a tool that must run as one
 * (`execution.taskSupport: "required"`, the 2025-11-25 tasks: `tools/call` with a `task` starts
 * it, `tasks/result` fetches the result once it ended), or the task a 2026-07-28 server answered
 * the call with (`created`, the Tasks extension: the last `tasks/get` answer carries the result).
 * Both eras are polled by one driver at the server's interval; the task outlives the connection:
 * a poll that cannot be delivered (a lost connection) waits for a new one and goes on with the
 * same task, so a reconnect does not start the work again. An abort cancels the task on the
 * server, best effort.
 *
 * @param call The call; with `created`, the handle a modern server answered it with.
 * @returns The tool's result.
 */
export async function callTask(
  connection: CallingConnection,
  call: ToolCall & { created?: CreatedTask },
): Promise<ToolOutput> {
  const { toolName, context, created } = call;
  const deadline = callDeadline(toolName, context, connection.settings);
  const { signal } = deadline;
  const host: TaskHost = {
    toolName,
    signal,
    request: { signal, timeout: connection.settings.requestTimeoutMs },
    ready: (signal) => connection.readyClient(toolName, signal),
    // A task's questions go to the call that started it, as a call's own `input_required` does.
    ask: (asked, signal) => {
      const request = { ...serverOf(connection.settings), ...asked };
      return connection.answerInput(context, { request, signal });
    },
    undelivered: (error, client) => {
      if (connection.undelivered(client, error) !== undefined) return true;
      // A poll is a read: one whose answer was lost may be asked again.
      const code = mcpErrorCodeOf(error);
      return code === McpErrorCode.ConnectionClosed || code === undefined;
    },
  };
  try {
    let result: unknown;
    if (created !== undefined) result = await driveTask(host, created, MODERN);
    else {
      const client = await host.ready(signal);
      const { task } = await client.request(
        {
          method: "tools/call",
          params: {
            name: toolName,
            arguments: call.args,
            task: { ttl: Math.max(60_000, deadline.hardMs) },
          },
        },
        CreatedSchema,
        host.request,
      );
      result = await driveTask(host, task, LEGACY);
    }
    return toolOutputOf(result, toolName, connection.callOptions(context.timeoutMs));
  } catch (error) {
    throw connection.redactor.toolError(mcpErrorToToolError(error, { toolName, signal }));
  } finally {
    deadline.dispose();
  }
}

/** What the poll driver needs of its connection. */
interface TaskHost {
  /** The tool, for messages. */
  toolName: string;
  /** Ends the task's call. */
  signal: AbortSignal;
  /** The options of each request (create, poll, result). */
  request: { signal: AbortSignal; timeout: number };
  /** A ready client: the one in use, or a new one after a lost connection. */
  ready(signal: AbortSignal): Promise<Client>;
  /** Puts a task's form question to the person behind the call. */
  ask(
    asked: { message: string; requestedSchema: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<McpElicitationResult>;
  /**
   * Whether a failed poll may be asked again (its request or answer was lost); a broken client is
   * dropped here, so the next `ready` opens a new one.
   */
  undelivered(error: unknown, client: Client): boolean;
}

/** How one protocol era reports a task, and how its result is had once it ended. */
interface TaskEra<T extends { taskId: string; status: string }> {
  /** A `tasks/get` answer. */
  schema: z.ZodType<T>;
  /** The statuses of a task that still runs. */
  running: readonly string[];
  /** The interval the server asks polls at. */
  pollMs(task: T): number | undefined;
  /** The result of an ended task (or throws the error it ended with). */
  finish(host: TaskHost, task: T): unknown;
  /**
   * Answers a task that waits for input (`input_required`) and returns it as running again;
   * an era without it ends such a task through `finish`.
   */
  answer?(host: TaskHost, task: T): Promise<T>;
}

const TaskSchema = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: z.string(),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});
const CreatedSchema = z.looseObject({ task: TaskSchema });
const ResultSchema = z.looseObject({});

/** The 2025-11-25 tasks: the result is fetched with `tasks/result`. */
const LEGACY: TaskEra<z.infer<typeof TaskSchema>> = {
  schema: TaskSchema,
  running: ["working", "submitted"],
  pollMs: (task) => task.pollInterval,
  async finish(host, task) {
    if (task.status !== "completed" && task.status !== "failed") {
      throw new Error(
        `The server's task for tool "${host.toolName}" ended as "${task.status.slice(0, 40)}"`,
      );
    }
    const client = await host.ready(host.signal);
    const params = { taskId: task.taskId };
    return await client.request({ method: "tasks/result", params }, ResultSchema, host.request);
  },
};

/**
 * The 2026-07-28 Tasks extension: the last `tasks/get` answer carries the result. A task that
 * asks for input (`input_required`, its `inputRequests` in the `tasks/get` answer) has its form
 * questions put to the calling user (see `answer`), and the answers sent with `tasks/update`.
 */
const MODERN: TaskEra<CreatedTask> = {
  schema: ModernTaskSchema,
  running: ["working"],
  pollMs: (task) => task.pollIntervalMs,
  finish(_host, task) {
    if (task.status === "completed" && task.result !== undefined) return task.result;
    if (task.status === "failed" && task.error !== undefined) {
      const { code, message } = task.error;
      throw new McpRpcError(
        typeof code === "number" ? code : -32603,
        (message ?? "The task failed").slice(0, 2000),
      );
    }
    throw new Error(`The server's task ended as "${task.status.slice(0, 40)}" without a result`);
  },
  async answer(host, task) {
    const asked = Object.entries(task.inputRequests ?? {});
    if (asked.length === 0) return { ...task, status: "working" }; // nothing to answer: poll on
    const inputResponses: Record<string, McpElicitationResult> = {};
    for (const [key, { method, params }] of asked) {
      const form = params as { mode?: unknown; message?: unknown; requestedSchema?: unknown };
      if (method !== "elicitation/create" || (form.mode ?? "form") !== "form") {
        throw new Error(
          `The server's task asks for "${method.slice(0, 60)}", which toolroute does not ` +
            `answer for tasks; it was cancelled`,
        );
      }
      const schema = form.requestedSchema;
      inputResponses[key] = await host.ask({
        message: String(form.message ?? ""),
        requestedSchema: typeof schema === "object" && schema !== null
          ? schema as Record<string, unknown>
          : {},
      }, host.signal);
    }
    const client = await host.ready(host.signal);
    const params = { taskId: task.taskId, inputResponses };
    await client.request({ method: "tasks/update", params }, ResultSchema, host.request);
    return { ...task, status: "working", inputRequests: undefined };
  },
};

/** Most rounds of questions one task may ask (as a call's own `input_required` rounds). */
const MAX_INPUT_ROUNDS = 10;

/** Polling bounds: the server's interval is kept within them. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
/** Most consecutive polls that could not be delivered (the server is gone for good). */
const MAX_UNDELIVERED = 8;

const UNREACHABLE = "The server of the task could not be reached again while the task ran";

/** Polls a task with `tasks/get` until it no longer runs, then has its era finish it. */
async function driveTask<T extends { taskId: string; status: string }>(
  host: TaskHost,
  first: T,
  era: TaskEra<T>,
): Promise<unknown> {
  const { signal } = host;
  const { taskId } = first;
  const cancel = () => void cancelTask(host, taskId);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    let task = first;
    let undelivered = 0;
    let rounds = 0;
    for (;;) {
      if (task.status === "input_required" && era.answer !== undefined) {
        try {
          if (++rounds > MAX_INPUT_ROUNDS) {
            throw new Error(
              `The server's task asked for input more than ${MAX_INPUT_ROUNDS} times; it was cancelled`,
            );
          }
          task = await era.answer(host, task);
        } catch (error) {
          // A question that could not be put (or answered) leaves no task waiting on the server.
          if (!signal.aborted) void cancelTask(host, taskId);
          throw error;
        }
      }
      if (!era.running.includes(task.status)) break;
      await delay(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, era.pollMs(task) ?? 500)), {
        signal,
      });
      const polling = await reconnected(host);
      if (polling === undefined) {
        if (++undelivered > MAX_UNDELIVERED) throw new Error(UNREACHABLE);
        continue;
      }
      try {
        const params = { taskId };
        task = await polling.request({ method: "tasks/get", params }, era.schema, host.request);
        undelivered = 0;
      } catch (error) {
        if (
          signal.aborted || !host.undelivered(error, polling) || ++undelivered > MAX_UNDELIVERED
        ) {
          throw error;
        }
      }
    }
    return await era.finish(host, task);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/**
 * A ready client for the next poll, or `undefined` when the server cannot be reached now (a
 * restart): the task outlives the connection, so the poll is tried again after its interval.
 */
async function reconnected(host: TaskHost): Promise<Client | undefined> {
  try {
    return await host.ready(host.signal);
  } catch (error) {
    if (host.signal.aborted || (error as { code?: unknown }).code !== "upstream_unavailable") {
      throw error;
    }
    return undefined;
  }
}

async function cancelTask(host: TaskHost, taskId: string): Promise<void> {
  try {
    const client = await host.ready(AbortSignal.timeout(5_000));
    await client.request({ method: "tasks/cancel", params: { taskId } }, ResultSchema, {
      timeout: 5_000,
    });
  } catch {
    // Best effort: the task ends with its lifetime anyway.
  }
}
