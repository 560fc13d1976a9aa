import { McpErrorCode, McpRpcError } from "../../mcp_error_code.ts";
import type { McpJsonRpcMessage } from "../../mcp_transport.ts";
import type { DirectRequestHost, Reading } from "./direct_request_host.ts";

/** How reading one body ended. */
export type ReadEnd = "done" | "error" | "too_large";

/**
 * Reads a JSON answer: at once when its length is declared and within the bound, otherwise
 * through the bounded reader; each JSON-RPC message in it is delivered.
 *
 * @param host The connection (body bound, parse errors).
 * @param response The answer.
 * @param reading The request's reading state.
 * @param deliver Receives each message.
 * @returns How reading ended.
 */
export async function readJson(
  host: DirectRequestHost,
  response: Response,
  reading: Reading,
  deliver: (message: McpJsonRpcMessage) => void,
): Promise<ReadEnd> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  let text: string;
  // A declared length counts encoded bytes: with a `content-encoding` the runtime decompresses,
  // so a small gzip body could expand without bound if it were read whole.
  if (
    Number.isSafeInteger(declared) && declared <= host.maxBodyBytes &&
    !response.headers.has("content-encoding")
  ) {
    // The runtime enforces the declared length and reads it natively in one piece.
    text = await response.text();
  } else {
    const chunks: string[] = [];
    const end = await readEventStream(host, response.body, reading, undefined, chunks);
    if (end !== "done") return end;
    text = chunks.join("");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    reading.malformed = true;
    host.malformed(error as Error);
    return "done";
  }
  deliverAll(host, parsed, reading, deliver);
  return "done";
}

/**
 * Reads a body with its size bounded: as an event stream (each `message` event's data parsed
 * and delivered), or, with `text` given, collecting the decoded text.
 */
export async function readEventStream(
  host: DirectRequestHost,
  body: ReadableStream<Uint8Array> | null,
  reading: Reading,
  deliver?: (message: McpJsonRpcMessage) => void,
  text?: string[],
): Promise<ReadEnd> {
  if (body === null) return "done";
  const reader = body.getReader();
  const release = host.own(reader);
  reading.reader = reader;
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let bytes = 0;
  let lfAfterCr = false;
  const dispatch = () => {
    if (data.length > 0 && (event === "" || event === "message")) {
      try {
        deliverAll(host, JSON.parse(data.join("\n")), reading, deliver!);
      } catch (error) {
        reading.malformed = true;
        host.malformed(error as Error);
      }
    }
    data = [];
    event = "";
  };
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      if (bytes > host.maxBodyBytes) {
        await reader.cancel().catch(() => {});
        return "too_large";
      }
      if (text !== undefined) {
        text.push(decoder.decode(chunk.value, { stream: true }));
        continue;
      }
      let decoded = decoder.decode(chunk.value, { stream: true });
      // Lines end with LF, CRLF or CR: the rarer two become LF (a CRLF may span two chunks).
      if (lfAfterCr && decoded.startsWith("\n")) decoded = decoded.slice(1);
      lfAfterCr = false;
      if (decoded.includes("\r")) {
        lfAfterCr = decoded.endsWith("\r");
        decoded = decoded.replace(/\r\n?/g, "\n");
      }
      buffer += decoded;
      let start = 0;
      for (
        let newline = buffer.indexOf("\n");
        newline >= 0;
        newline = buffer.indexOf("\n", start)
      ) {
        const line = buffer.slice(start, newline);
        start = newline + 1;
        if (line === "") {
          dispatch();
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0
          ? ""
          : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) reading.lastEventId = value;
        else if (field === "retry" && /^\d+$/.test(value)) reading.retryMs = Number(value);
      }
      buffer = buffer.slice(start);
    }
    text?.push(decoder.decode());
    return "done";
  } catch {
    return "error";
  } finally {
    release();
  }
}

/** Delivers each JSON-RPC message of a parsed body; anything else counts as malformed. */
function deliverAll(
  host: DirectRequestHost,
  parsed: unknown,
  reading: Reading,
  deliver: (message: McpJsonRpcMessage) => void,
): void {
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (isJsonRpcMessage(message)) deliver(message);
    else {
      reading.malformed = true;
      host.malformed(new SyntaxError("The server sent something that is not a JSON-RPC message"));
    }
  }
}

/** A request or notification (a `method`), or a response (an `id` and a result or an error). */
function isJsonRpcMessage(message: unknown): message is McpJsonRpcMessage {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { method, id, result, error } = message as McpJsonRpcMessage;
  if (typeof method === "string") return true;
  return (typeof id === "string" || typeof id === "number") &&
    ((result !== undefined) !== (error !== undefined));
}

/** The error of an answer that could not be parsed. */
export function malformedAnswer(): McpRpcError {
  return new McpRpcError(McpErrorCode.InternalError, "The server sent a malformed answer");
}
