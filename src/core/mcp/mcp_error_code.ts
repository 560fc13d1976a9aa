/**
 * The JSON-RPC error codes MCP uses, and the code of an error a client threw, without importing
 * the MCP SDK: code that only converts errors (every router, even one with function tools only)
 * must not bundle the SDK's client.
 *
 * @module
 */

/** The JSON-RPC error codes MCP uses (the SDK's `ErrorCode` values). */
export const McpErrorCode = Object.freeze(
  {
    ConnectionClosed: -32000,
    RequestTimeout: -32001,
    ParseError: -32700,
    InvalidRequest: -32600,
    MethodNotFound: -32601,
    InvalidParams: -32602,
    InternalError: -32603,
  } as const,
);

/** A JSON-RPC error answer, as the in-process client throws it (like the SDK's `McpError`). */
export class McpRpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's data (as the SDK's: `{ maxTotalTimeout }` when the hard deadline passed). */
  readonly data?: unknown;

  /**
   * Creates the error.
   *
   * @param code The JSON-RPC error code.
   * @param message The message, without the code.
   * @param data The error's data.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(`MCP error ${code}: ${message}`);
    this.code = code;
    this.data = data;
    // The SDK's McpError has this name too: both are told apart from other errors by it.
    this.name = "McpError";
  }
}

/**
 * The JSON-RPC code of an MCP error: the SDK's `McpError` or an {@linkcode McpRpcError}.
 *
 * @param error What a client threw.
 * @returns The code, or `undefined` for any other error.
 */
export function mcpErrorCodeOf(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== "McpError") return undefined;
  const { code } = error as Error & { code?: unknown };
  return typeof code === "number" ? code : undefined;
}
