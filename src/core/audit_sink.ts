import type { ErrorCode } from "./tool_error.ts";
import type { SourceKind } from "./tool_source.ts";

/** One line of the audit trail: who called what, under which rule, how it ended. */
export interface AuditRecord {
  /** When the call started (ISO 8601). */
  time: string;
  /** The request's user, when there is one. */
  userId?: string;
  /** The tool name as called. */
  tool: string;
  /** The source that ran it; absent for `unknown_tool`. */
  source?: SourceKind;
  /** The MCP server (user, local or global) whose tool it is. */
  server?: string;
  /** Where the tool comes from within its source (`server/tool` for MCP tools). */
  origin?: string;
  /** The policy decision (`allow`, `ask`, `deny`), when a policy decided. */
  decision?: string;
  /** The policy rule that decided, when one did. */
  rule?: string;
  /** `sha256-…` of the arguments as canonical JSON (of the text, when it was not JSON). */
  argumentsDigest: string;
  /** The arguments themselves, only with `auditArguments: true`. */
  arguments?: unknown;
  /** How long the call took, in milliseconds. */
  durationMs: number;
  /** `ok`, or the error code. */
  outcome: "ok" | ErrorCode;
  /** The trace the call's span belongs to, when tracing is on or the caller sent one. */
  traceId?: string;
  /** The call's span, when there is a trace. */
  spanId?: string;
}

/**
 * Receives one {@linkcode AuditRecord} per call. The router never waits for it: a sink buffers
 * and writes on its own (the `./deno` entry's `FileAuditSink` appends JSON lines to a file).
 * A throw or rejection is ignored.
 */
export interface AuditSink {
  /** Takes one record. */
  write(record: AuditRecord): void | Promise<void>;
  /**
   * Optional: takes a record to build later, when the sink writes (off the call path: the
   * argument digest and the ISO time are computed there). The router uses it, when present, for
   * calls whose arguments are JSON text (which cannot change after the call); `build` returns the
   * same record `write` would have received and may be called once.
   */
  writeLater?(build: () => AuditRecord): void;
}
