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
    MethodNotFound: -32601,
    InvalidParams: -32602,
    InternalError: -32603,
  } as const,
);

/** A JSON-RPC error answer, as the in-process client throws it (like the SDK's `ProtocolError`). */
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
    // The SDK 1.x name of a JSON-RPC error; `mcpErrorCodeOf` tells errors apart by name.
    this.name = "McpError";
  }
}

/**
 * The JSON-RPC codes of the SDK's local errors (`SdkError`, string codes) that mean what a JSON-RPC
 * code of MCP means: the SDK 2.x reports its own deadline and a closed connection this way.
 */
const SDK_ERROR_CODES: Readonly<Record<string, number>> = Object.freeze({
  REQUEST_TIMEOUT: McpErrorCode.RequestTimeout,
  CONNECTION_CLOSED: McpErrorCode.ConnectionClosed,
  // A result that is not one (a tool result without a content list): the server's fault.
  INVALID_RESULT: McpErrorCode.InternalError,
  // A server that keeps asking for input, or asks what the client does not answer (sampling,
  // roots): its fault too, and the same again on a retry, so not "unavailable".
  INPUT_REQUIRED_ROUNDS_EXCEEDED: McpErrorCode.InternalError,
  CAPABILITY_NOT_SUPPORTED: McpErrorCode.InternalError,
});

/**
 * The JSON-RPC code of an MCP error: the SDK's `ProtocolError`, its `SdkError` for a deadline or
 * a closed connection, or an {@linkcode McpRpcError}. Told apart by name, not class, so that this
 * module does not import the SDK.
 *
 * @param error What a client threw.
 * @returns The code, or `undefined` for any other error.
 */
export function mcpErrorCodeOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code } = error as Error & { code?: unknown };
  switch (error.name) {
    case "McpError":
    case "ProtocolError":
      return typeof code === "number" ? code : undefined;
    case "SdkError":
      return typeof code === "string" ? SDK_ERROR_CODES[code] : undefined;
    default:
      return undefined;
  }
}
