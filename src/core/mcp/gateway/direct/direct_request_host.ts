import type { McpJsonRpcMessage } from "../../mcp_transport.ts";
import type { DeadlineTimer } from "../../../deadline_timer.ts";

/** What a direct request needs of its connection (an `HttpClientTransport`). */
export interface DirectRequestHost {
  /** Most bytes of one answer. */
  readonly maxBodyBytes: number;
  /** The deadlines of the connection's requests (stopped when it closes). */
  readonly deadlines: DeadlineTimer;
  /**
   * POSTs a JSON-RPC body, or with `body` undefined GETs the event stream after `lastEventId`,
   * with the connection's headers; `null` when the server accepted it without an answer (202).
   */
  exchange(body: string | undefined, lastEventId: string | undefined): Promise<Response | null>;
  /** Registers a body reader so that closing the connection cancels it; returns the release. */
  own(reader: ReadableStreamDefaultReader<Uint8Array>): () => void;
  /** Delivers a message that is not this request's (logs, elicitation, other answers). */
  forward(message: McpJsonRpcMessage): void;
  /** Routes this id's answer here should it arrive on another stream; returns the release. */
  expect(id: number, handle: (message: McpJsonRpcMessage) => void): () => void;
  /** Tells the server a request was given up (`notifications/cancelled`). */
  cancel(id: number, reason: string): void;
  /** Reports a message that could not be parsed. */
  malformed(error: Error): void;
}

/** How reading one answer goes: its stream's last event id and retry, and whether it ended. */
export interface Reading {
  lastEventId?: string;
  retryMs: number;
  malformed: boolean;
  /** Set when the request was given up (deadline, signal): reading stops. */
  stopped: boolean;
  /** The body being read, cancelled when the request is given up. */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** Ends the wait before a resumption at once (the server's `retry` can ask for days). */
  wake?: () => void;
}
