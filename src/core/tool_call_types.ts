import type { ErrorCode } from "./tool_error.ts";
import type { ToolContent } from "./tool_output.ts";
import type {
  SourceKind,
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
} from "./tool_source.ts";
import type {
  ApprovalHandler,
  ApprovalOutcome,
  PendingApproval,
  PolicyAction,
} from "./policy_types.ts";
import type { AuditSink } from "./audit_sink.ts";
import type { HookRecord } from "./hook_record.ts";
import type { ArgumentLimits } from "./parse_arguments.ts";

/** Options of one tool call. */
export interface CallOptions {
  /** Aborts the call; the tool's `context.signal` aborts too and the result is `aborted`. */
  signal?: AbortSignal;
  /** Deadline in milliseconds; past it the result is `timeout`. Default: the router's. */
  timeoutMs?: number;
  /** Receives progress reports from tools that send them. */
  onProgress?: (progress: ToolProgress) => void;
  /** Decides this call's asks, instead of the router's `approve` (serve's elicitation uses it). */
  approve?: ApprovalHandler;
  /** The caller's W3C `traceparent`: the call's span continues that trace. */
  traceparent?: string;
  /** The caller's W3C `tracestate`, with `traceparent`. */
  tracestate?: string;
  /** The caller's W3C `baggage`, passed on to remote calls as it is. */
  baggage?: string;
  /** The model's id of this tool call (`gen_ai.tool.call.id` on the span). */
  toolCallId?: string;
  /**
   * Answers a tool's request for input from the person behind the call (an upstream MCP
   * server's form elicitation); without it such requests are cancelled.
   */
  onElicitation?: (
    request: ToolElicitation,
    signal: AbortSignal,
  ) => Promise<ToolElicitationResult>;
  /** Receives log messages a tool sends during the call (an upstream MCP server's). */
  onLog?: (entry: ToolLogEntry) => void;
  /**
   * The agent run this call belongs to: per-run budgets (policy limits without `windowMs`) count
   * per run id. Default: one run per tool set.
   */
  runId?: string;
}

/** The result of one tool call, with its details. */
export interface ToolCallResult {
  /** The text for the model: the result, or a plain-sentence error. */
  text: string;
  /** Whether the call failed. */
  isError: boolean;
  /** The error's code, when the call failed. */
  code?: ErrorCode;
  /** The source that ran the call; absent for `unknown_tool`. */
  source?: SourceKind;
  /** The tool name as called. */
  tool: string;
  /** With `approval_required`: the call waiting for a person, for `approve` or `resume`. */
  approval?: PendingApproval;
  /** The call's id, in results of `ToolSet#callAll` whose call had one. */
  id?: string;
  /**
   * The result as MCP content blocks (images, audio, resources kept as they are), for hosts that
   * pass media to a model; a plain result or an error is one text block equal to `text`.
   * Bounded like `text`: text blocks by the result budget (cut into one block), media by
   * `maxMediaBytes`.
   */
  content: ToolContent[];
  /** The structured result, when the tool returned one (MCP `structuredContent`). */
  structuredContent?: Record<string, unknown>;
  /** When a result budget cut the result: the handle `read_result` reads the whole of it by. */
  resultHandle?: string;
  /** With `rate_limited`: milliseconds until the call may be tried again, when known. */
  retryAfterMs?: number;
}

/** The event the router emits once per call. */
export interface ToolCallEvent {
  /** Always `"call"`. */
  type: "call";
  /** The tool name as called. */
  tool: string;
  /** The source that ran it; absent for `unknown_tool`. */
  source?: SourceKind;
  /** The request's user. */
  userId?: string;
  /** How long the call took, in milliseconds. */
  durationMs: number;
  /** Whether the call failed. */
  isError: boolean;
  /** The error's code, when the call failed. */
  code?: ErrorCode;
  /** With a policy: what it decided. */
  decision?: PolicyAction;
  /** With a policy: the rule that decided (`"default"` when none matched). */
  rule?: string;
  /** For asks: what became of the approval. */
  approval?: ApprovalOutcome;
  /** For asks: the approval's id. */
  approvalId?: string;
  /** For asks a grant let run (or an answer made lasting): the grant's id. */
  grantId?: string;
  /** For asks: `true` when the person edited the arguments the call ran with. */
  argumentsEdited?: true;
  /** What each hook that acted decided, in order (hooks that let the call pass are left out). */
  hooks?: HookRecord[];
}

/** What a policy decided about a call, as its event and audit record report it. */
export type CallDecision = Pick<
  ToolCallEvent,
  "decision" | "rule" | "approval" | "approvalId" | "grantId" | "argumentsEdited" | "hooks"
>;

/** Settings the router passes to every call: its options of the same names (`ToolRouterOptions`). */
export interface CallSettings {
  timeoutMs?: number;
  argumentLimits?: ArgumentLimits;
  maxMediaBytes?: number;
  onEvent?: (event: ToolCallEvent) => void;
  audit?: AuditSink;
  auditArguments?: boolean;
}
