import * as z from "zod";
import type { JSONRPCMessage, Transport } from "../../mcp_sdk.ts";

/** A task as the 2026-07-28 Tasks extension has it (`tasks/get`, or the handle a call answered). */
export const ModernTaskSchema = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: z.string(),
  pollIntervalMs: z.number().optional(),
  statusMessage: z.string().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional() })
    .optional(),
  /** What a task in `input_required` asks, by the server's keys (answered with `tasks/update`). */
  inputRequests: z.record(
    z.string().max(256),
    z.looseObject({ method: z.string(), params: z.looseObject({}).optional() }),
  ).optional(),
});

/** A task handle a modern server answered a `tools/call` with (see {@linkcode createdTaskOf}). */
export type CreatedTask = z.infer<typeof ModernTaskSchema>;

/** The identifier of the Tasks extension of the 2026-07-28 revision. */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The error data objects made by {@linkcode surfaceTaskAnswers}: a server cannot forge one. */
const surfaced = new WeakSet<object>();

/**
 * Lets a modern connection's calls run as tasks (the Tasks extension of 2026-07-28). When the
 * server offers the extension (in what `server/discover` answered), each `tools/call` sent
 * declares it in its per-request client capabilities (only there: a 2025 connection never
 * declares what it could not follow). An extension is used when both sides declare it: to a
 * server that does not offer it, nothing is declared. SDK 2.4.0 has no runtime for the
 * extension: its client rejects a `tools/call` answered with `resultType: "task"` as an
 * unsupported result and keeps nothing of it, so the handle is turned into an error answer to that
 * request here, whose data {@linkcode createdTaskOf} finds, and the call goes on by polling.
 *
 * @param transport The connected transport (its `onmessage` is the client's, set on connect).
 * @param server What the server offers: its capabilities, as the client holds them.
 */
export function surfaceTaskAnswers(
  transport: Transport,
  server: { capabilities: { extensions?: Record<string, unknown> } | undefined },
): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  if (server.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(declaringTasks(message), options);
  }
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
