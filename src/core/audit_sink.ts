import type { ErrorCode } from "./tool_error.ts";
import type { SourceKind } from "./tool_source.ts";
import type { ApprovalOutcome } from "./policy_types.ts";
import type { HookRecord } from "./hook_record.ts";

/**
 * What was decided about a call: the policy let it run (`allow`), refused it (`deny`), asked a
 * person (`ask`), and the person approved it (`approve`) or not (`reject`, also for an approval
 * that was changed, expired, already used or bound to other arguments); or the router refused it
 * before any policy: the name is not exposed (`unknown_tool`) or the arguments are not valid
 * (`invalid_arguments`). A call without a policy is `allow` by the `default`.
 */
export type AuditDecision =
  | "allow"
  | "deny"
  | "ask"
  | "approve"
  | "reject"
  | "unknown_tool"
  | "invalid_arguments";

/**
 * One line of the audit trail: who called what, what was decided and under which rule, how it
 * ended. Every decision writes one: an allowed call when it ends, a denied, unknown or invalid
 * one at once, an ask when the person is asked and again when they answer.
 */
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
  /** What was decided. */
  decision: AuditDecision;
  /** The policy rule that decided (`"default"` when no rule matched or there is no policy). */
  rule?: string;
  /** For asks: what became of the approval (`pending`, `approved`, `rejected`, `invalid`). */
  approval?: ApprovalOutcome;
  /** For asks: the approval's id, the same in the ask's record and the answer's. */
  approvalId?: string;
  /** For asks a grant let run (or an answer made lasting): the grant's id. */
  grantId?: string;
  /** For asks: `true` when the person edited the arguments the call ran with. */
  argumentsEdited?: true;
  /** What each hook that acted decided, in order. */
  hooks?: HookRecord[];
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
 * Receives one {@linkcode AuditRecord} per decision. The router never waits for the write: a sink
 * buffers and writes on its own (the `./deno` entry's `FileAuditSink` appends JSON lines to a
 * file). A throw or rejection is ignored. A sink with a bounded buffer implements `waitForRoom`, so
 * a full buffer holds calls back instead of losing records.
 */
export interface AuditSink {
  /** Takes one record. */
  write(record: AuditRecord): void | Promise<void>;
  /**
   * Optional: takes a record to build later, when the sink writes (off the call path: the
   * record's ISO time and JSON are built there). The router uses it, when present, for
   * calls whose arguments are JSON text (which cannot change after the call); `build` returns the
   * same record `write` would have received and may be called once.
   */
  writeLater?(build: () => AuditRecord): void;
  /**
   * Optional: waits for room for one more record, before the router records a decision (and
   * before the call it records runs). Returns nothing when there is room now; otherwise a promise
   * that resolves when there is, or rejects when the sink gives up waiting (its own bound) or
   * `signal` aborts. After a rejection the router does not run the call (`audit_unavailable`)
   * and still writes its record.
   */
  waitForRoom?(signal?: AbortSignal): void | Promise<void>;
}
