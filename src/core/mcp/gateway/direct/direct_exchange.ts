import { McpErrorCode, McpRpcError } from "../../mcp_error_code.ts";
import type { McpJsonRpcMessage } from "../../mcp_transport.ts";
import {
  malformedAnswer,
  type ReadEnd,
  readEventStream,
  readJson,
} from "./direct_answer_reader.ts";
import type { DirectRequestHost, Reading } from "./direct_request_host.ts";

/** Resumptions of a broken event stream that carried event ids (the SDK transport's setting). */
const MAX_RESUMPTIONS = 2;

/**
 * Runs the HTTP side: the POST, its answer, and resumptions of a broken event stream. Returns
 * the error to end the request with when its answer did not come, `undefined` otherwise (answered,
 * or accepted to be answered on another stream).
 *
 * @param host The connection.
 * @param id The request id.
 * @param body The JSON-RPC request.
 * @param reading The request's reading state (stopped when it is given up).
 * @param handle Receives every message read.
 * @returns The error to end the request with, if any.
 */
export async function exchange(
  host: DirectRequestHost,
  id: number,
  body: string,
  reading: Reading,
  handle: (message: McpJsonRpcMessage) => void,
): Promise<Error | undefined> {
  let answered = false;
  const deliver = (message: McpJsonRpcMessage) => {
    if (message.method === undefined && message.id === id) answered = true;
    handle(message);
  };
  let response = await host.exchange(body, undefined);
  for (let resumptions = 0;; resumptions++) {
    if (response === null) return undefined;
    if (reading.stopped) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
    const type = response.headers.get("content-type") ?? "";
    let end: ReadEnd;
    if (/^\s*application\/json/i.test(type)) {
      end = await readJson(host, response, reading, deliver);
    } else if (/^\s*text\/event-stream/i.test(type)) {
      end = await readEventStream(host, response.body, reading, deliver);
    } else {
      await response.body?.cancel().catch(() => {});
      return new Error(`The server answered with an unexpected content type "${type}"`);
    }
    if (answered || reading.stopped) return undefined;
    if (end === "too_large") {
      return new McpRpcError(
        McpErrorCode.InternalError,
        `The server's answer is larger than ${host.maxBodyBytes} bytes`,
      );
    }
    if (reading.lastEventId === undefined || resumptions >= MAX_RESUMPTIONS) {
      return reading.malformed ? malformedAnswer() : new McpRpcError(
        McpErrorCode.ConnectionClosed,
        "The server closed the connection",
      );
    }
    // A stream with event ids is resumed where it broke (the server's `retry` wins).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, reading.retryMs * 2 ** resumptions);
      reading.wake = () => (clearTimeout(timer), resolve());
    });
    reading.wake = undefined;
    if (reading.stopped) return undefined;
    response = await host.exchange(undefined, reading.lastEventId);
  }
}
