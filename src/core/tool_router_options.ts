import type { FunctionTool } from "./define_tool.ts";
import type { McpService } from "./define_mcp_service.ts";
import type { ArgumentLimits } from "./parse_arguments.ts";
import type { CallOptions, ToolCallEvent } from "./tool_call_types.ts";
import type { BuiltinContext, BuiltinSource, GatewaySource } from "./tool_source.ts";
import type { KeyValueStore } from "./store/key_value_store.ts";
import type { StoreKey } from "./store/encrypted_store.ts";
import type { ApprovalHandler, Policy } from "./policy_types.ts";
import type { AuditSink } from "./audit_sink.ts";
import type { ResultBudget } from "./result_budget.ts";
import type { ToolHook } from "./hooks/tool_hook.ts";

/** What `new ToolRouter` takes. */
export interface ToolRouterOptions {
  /** Function tools made by `defineTool`. */
  functions?: readonly FunctionTool[];
  /** Local MCP services made by `defineMcpService`. */
  mcpServices?: readonly McpService[];
  /** The remote MCP gateway (`McpGateway`). */
  gateway?: GatewaySource;
  /** The built-in tools (`builtinTools(context)` from the `./deno` entry). */
  builtins?: BuiltinSource;
  /** Receives one event per call; it must not throw (a throw is ignored). */
  onEvent?: (event: ToolCallEvent) => void;
  /**
   * Receives one audit record per decision: allow, deny, ask, approve, reject, unknown tool,
   * invalid arguments (user, tool, source, server, decision and rule, argument digest, duration,
   * outcome, trace id); never awaited, but a sink with `waitForRoom` holds calls back while full.
   * `FileAuditSink` in `./deno` writes JSON lines.
   */
  audit?: AuditSink;
  /** Whether audit records carry the arguments themselves, not only their digest. Default: `false`. */
  auditArguments?: boolean;
  /** Deadline of calls that give no `timeoutMs`. Default: none for in-process tools. */
  timeoutMs?: number;
  /**
   * Most characters of a result: the same as `resultBudget: { tokens: maxResultChars / 4 }`
   * (longer results keep head and tail, the whole behind a `read_result` handle). Give one of
   * the two. Default: no limit.
   */
  maxResultChars?: number;
  /**
   * Token budgets of results per tool, per source and for the router: a longer result keeps its
   * head and tail, and the whole of it is kept (in `store`, the built-ins' in their own folder)
   * for the model to read with `read_result` (docs/context_economy.md). Default: none.
   */
  resultBudget?: ResultBudget;
  /**
   * Most decoded bytes of the media (images, audio, resource blobs) of one result; media past it is
   * replaced by a text block saying what was left out. Default: 16 MiB.
   */
  maxMediaBytes?: number;
  /** Limits on the argument text a model may send. */
  argumentLimits?: ArgumentLimits;
  /** Allow, ask and deny rules over every request's tools; see {@linkcode Policy}. */
  policy?: Policy;
  /** Decides asks while the call waits; without it a call returns `approval_required`. */
  approve?: ApprovalHandler;
  /** The secret that signs approvals (at least 16 bytes); random per router by default. */
  approvalSecret?: string | Uint8Array;
  /** How long a pending approval stays valid, in milliseconds. Default: 15 minutes. */
  approvalTtlMs?: number;
  /**
   * Where used approval ids, grants (under the key prefix `["grants"]`), the counts of policy
   * limits and results cut by `resultBudget` are kept, so each approval runs once, routers that
   * share it share grants and limits, and a cut result can be read from another instance.
   * Default: in memory.
   */
  store?: KeyValueStore;
  /**
   * Encrypts the secrets the router keeps in `store` (approvals, grants) with AES-256-GCM: 32
   * random bytes, their base64, or an AES-GCM `CryptoKey` (see `EncryptedStore`).
   */
  storeKey?: StoreKey;
  /** How long a `session` grant lasts, in milliseconds. Default: 8 hours. */
  grantTtlMs?: number;
  /**
   * Hooks around every call of every request, before the request's own (`expose({ hooks })`),
   * in order; see {@linkcode ToolHook}.
   */
  hooks?: readonly ToolHook[];
}

/** Options of a host-side `ToolRouter#invoke`. */
export interface RouterInvokeOptions extends CallOptions {
  /** The user whose per-user servers are considered. */
  userId?: string;
  /** The built-in context for this call. */
  context?: BuiltinContext;
}
