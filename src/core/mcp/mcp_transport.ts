import type { McpServerConfig } from "./mcp_server_config.ts";

/** A JSON-RPC message as MCP transports carry it. */
export type McpJsonRpcMessage = Record<string, unknown>;

/**
 * An MCP client transport, described structurally (the SDK's `Transport` matches it, so does the
 * SDK's `StdioClientTransport`), so the public API names no SDK type.
 */
export interface McpTransport {
  /** Starts the transport (spawns the process, opens the stream). */
  start(): Promise<void>;
  /** Sends one message. */
  send(message: McpJsonRpcMessage, options?: unknown): Promise<void>;
  /** Closes the transport and everything it opened. */
  close(): Promise<void>;
  /** Set by the client: called once the transport is closed. */
  onclose?: () => void;
  /** Set by the client: called on errors that do not close the transport. */
  onerror?: (error: Error) => void;
  /** Set by the client: called for every message received. */
  onmessage?: (message: McpJsonRpcMessage, extra?: unknown) => void;
  /** The session id, for transports that have sessions. */
  sessionId?: string;
  /** Set by the client after initialisation. */
  setProtocolVersion?: (version: string) => void;
  /**
   * A longer connect deadline this transport needs, in milliseconds (a first `npx -y` start that
   * downloads); the gateway uses the larger of it and its own `connectTimeoutMs`.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Says why connecting stalled, for the connect-deadline message (a child that printed nothing,
   * and what it was given); `undefined` when there is nothing to add.
   */
  describeStall?(): string | undefined;
  /**
   * Why the server went away, once it has (a stdio server's exit code, the limit that killed it,
   * the end of its stderr), for `status()`; `undefined` when there is nothing to add.
   */
  endReason?(): string | undefined;
}

/** Which connection a transport is requested for. */
export interface McpTransportRequest {
  /** The server id. */
  serverId: string;
  /** The user, for per-user servers. */
  userId?: string;
}

/**
 * Makes the transport of one connection attempt. The gateway calls it on every attempt (the first
 * connect and each reconnect), after closing the previous transport, so a stdio server is
 * respawned and never runs twice. Returning `undefined` lets the gateway use its built-in HTTP
 * transport. The `./deno` entry passes one that spawns `{ command }` configs.
 */
export type McpTransportFactory = (
  config: McpServerConfig,
  request: McpTransportRequest,
) => McpTransport | undefined | Promise<McpTransport | undefined>;

/** The result of validating a value against a JSON Schema. */
export type McpJsonSchemaValidation<T> =
  | { valid: true; data: T; errorMessage: undefined }
  | { valid: false; data: undefined; errorMessage: string };

/**
 * Validates tool output against its `outputSchema`; the shape of the SDK's `jsonSchemaValidator`
 * option (its `AjvJsonSchemaValidator` and `CfWorkerJsonSchemaValidator` both fit). Edge builds
 * inject the cfworker one, which needs no code generation.
 */
export interface McpJsonSchemaValidator {
  /** Compiles a schema into a validating function. */
  getValidator<T>(schema: Record<string, unknown>): (input: unknown) => McpJsonSchemaValidation<T>;
}
