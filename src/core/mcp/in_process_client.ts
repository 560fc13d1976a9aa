import type { McpTool } from "./mcp_sdk_types.ts";
import type { McpCallRequestOptions, McpToolCaller } from "./mcp_call.ts";
import { McpErrorCode, McpRpcError } from "./mcp_error_code.ts";
import type {
  McpJsonRpcMessage,
  McpJsonSchemaValidation,
  McpJsonSchemaValidator,
} from "./mcp_transport.ts";

/** The protocol revision asked for (the SDK server answers with one it supports). */
const PROTOCOL_VERSION = "2025-11-25";
/** The SDK's default request deadline. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** An SDK server not yet connected, described structurally (see `MountableMcpServer`). */
export interface InProcessServer {
  /** Connects the server to a transport. */
  connect(transport: unknown): Promise<void>;
}

type Result = Record<string, unknown>;
type Validate = (input: unknown) => McpJsonSchemaValidation<unknown>;

interface Pending {
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
  progress: (params: Result) => void;
}

/** The transport handed to the server: what it sends reaches the client at once. */
class ServerSide {
  onmessage?: (message: McpJsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(readonly deliver: (message: McpJsonRpcMessage) => void) {}
  async start(): Promise<void> {}
  // deno-lint-ignore require-await
  async send(message: McpJsonRpcMessage): Promise<void> {
    this.deliver(message);
  }
  // deno-lint-ignore require-await
  async close(): Promise<void> {
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}

/**
 * A minimal MCP client for a server connected in-process (`router.mountMcpServer`): initialize,
 * `tools/list`, `tools/call` with deadline, progress and cancellation, `ping`, and the tool-list
 * change notification. It does not import the SDK's client, so a router that never mounts a
 * server does not bundle it. Structured output is checked against a tool's `outputSchema` with
 * the validator given (an SDK `McpServer` checks its own output as well).
 */
export class InProcessMcpClient implements McpToolCaller {
  /** Called when the server says its tool list changed. */
  onToolsChanged?: () => void;
  #server: ServerSide;
  #pending = new Map<number, Pending>();
  #nextId = 0;
  #closed = false;
  #validator?: McpJsonSchemaValidator;
  #outputValidators = new Map<string, Validate>();

  /**
   * Connects a server in-process and initialises the session.
   *
   * @param server The SDK server, not yet connected.
   * @param validator Validates structured output against a tool's `outputSchema`.
   * @returns The client, ready.
   */
  static async connect(
    server: InProcessServer,
    validator?: McpJsonSchemaValidator,
  ): Promise<InProcessMcpClient> {
    const client = new InProcessMcpClient(validator);
    await server.connect(client.#server);
    await client.#request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "toolroute", version: "0.1.0" },
    });
    client.#server.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    return client;
  }

  private constructor(validator?: McpJsonSchemaValidator) {
    this.#validator = validator;
    this.#server = new ServerSide((message) => this.#receive(message));
  }

  /**
   * Lists one page of tools.
   *
   * @param params The cursor of the page.
   * @param options The signal and deadline.
   * @returns The page.
   */
  async listTools(
    params: { cursor?: string },
    options: { signal?: AbortSignal; timeout?: number } = {},
  ): Promise<{ tools: McpTool[]; nextCursor?: string }> {
    const result = await this.#request("tools/list", params, options);
    const tools = Array.isArray(result.tools) ? result.tools as McpTool[] : [];
    for (const tool of tools) {
      if (this.#validator === undefined || tool.outputSchema === undefined) {
        this.#outputValidators.delete(tool.name);
      } else {
        this.#outputValidators.set(
          tool.name,
          this.#validator.getValidator(tool.outputSchema as Record<string, unknown>),
        );
      }
    }
    const cursor = result.nextCursor;
    return typeof cursor === "string" ? { tools, nextCursor: cursor } : { tools };
  }

  /**
   * Calls a tool; a result that breaks the tool's output schema is an `InvalidParams` error, as
   * the SDK's client reports it.
   *
   * @param params The tool, its arguments and `_meta`.
   * @param options Signal, deadline and progress.
   * @returns The result.
   */
  async callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    options: McpCallRequestOptions = {},
  ): Promise<Result> {
    const result = await this.#request("tools/call", params, options);
    const validate = this.#outputValidators.get(params.name);
    if (validate === undefined) return result;
    const structured = result.structuredContent;
    if (structured === undefined && result.isError !== true) {
      throw new McpRpcError(
        McpErrorCode.InvalidRequest,
        `Tool ${params.name} has an output schema but did not return structured content`,
      );
    }
    if (structured !== undefined) {
      const validation = validate(structured);
      if (!validation.valid) {
        throw new McpRpcError(
          McpErrorCode.InvalidParams,
          `Structured content does not match the tool's output schema: ${validation.errorMessage}`,
        );
      }
    }
    return result;
  }

  /** Fails every request in flight and closes the server's side. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of pending) {
      call.reject(new McpRpcError(McpErrorCode.ConnectionClosed, "Connection closed"));
    }
    await this.#server.close();
  }

  #request(method: string, params: Result, options: McpCallRequestOptions = {}): Promise<Result> {
    const { signal, onprogress } = options;
    if (this.#closed) {
      return Promise.reject(new McpRpcError(McpErrorCode.ConnectionClosed, "Connection closed"));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
    const started = performance.now();
    return new Promise<Result>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#pending.delete(id);
      };
      const fail = (error: unknown) => {
        done();
        this.#server.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(error) },
        });
        reject(error);
      };
      const timedOut = (message: string) =>
        fail(new McpRpcError(McpErrorCode.RequestTimeout, message));
      const onAbort = () => fail(signal?.reason);
      const arm = () => timer = setTimeout(() => timedOut("Request timed out"), timeoutMs);
      this.#pending.set(id, {
        resolve: (result) => (done(), resolve(result)),
        reject: (error) => (done(), reject(error)),
        progress: (progress) => {
          onprogress?.(progress as { progress: number; total?: number; message?: string });
          if (!options.resetTimeoutOnProgress) return;
          const max = options.maxTotalTimeout;
          if (max !== undefined && performance.now() - started > max) {
            return timedOut("Maximum total timeout exceeded");
          }
          clearTimeout(timer);
          arm();
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      arm();
      const withToken = onprogress === undefined
        ? params
        : { ...params, _meta: { ...(params._meta as Result | undefined), progressToken: id } };
      this.#server.onmessage?.({ jsonrpc: "2.0", id, method, params: withToken });
    });
  }

  #receive(message: McpJsonRpcMessage): void {
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method !== "string") {
      const pending = this.#pending.get(id as number);
      const error = message.error as { code?: unknown; message?: unknown } | undefined;
      if (error !== undefined) {
        pending?.reject(
          new McpRpcError(
            typeof error.code === "number" ? error.code : McpErrorCode.InternalError,
            String(error.message),
          ),
        );
      } else {
        const result = message.result ?? {};
        // Not an object (a string, a number, an array): malformed, as on the HTTP path.
        if (typeof result !== "object" || Array.isArray(result)) {
          pending?.reject(
            new McpRpcError(McpErrorCode.InternalError, "The server sent a malformed answer"),
          );
        } else pending?.resolve(result as Result);
      }
    } else if (id !== undefined) {
      // A request of the server's: only ping is answered (no capability is declared).
      this.#server.onmessage?.(
        method === "ping" ? { jsonrpc: "2.0", id, result: {} } : {
          jsonrpc: "2.0",
          id,
          error: { code: McpErrorCode.MethodNotFound, message: "Method not found" },
        },
      );
    } else if (method === "notifications/progress") {
      const params = (message.params ?? {}) as Result;
      this.#pending.get(params.progressToken as number)?.progress(params);
    } else if (method === "notifications/tools/list_changed") {
      this.onToolsChanged?.();
    }
  }
}
