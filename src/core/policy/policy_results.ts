import type {
  CallDecision,
  CallOptions,
  CallSettings,
  ToolCallEvent,
  ToolCallResult,
} from "../tool_call_types.ts";
import type { ErrorCode } from "../tool_error.ts";
import type { RoutedTool, SourceKind } from "../tool_source.ts";
import { auditEvent, auditRoom, emitEvent } from "../telemetry/call_telemetry.ts";
import { errorResult } from "../tool_call.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import type { PendingApproval, PolicyAction } from "../policy_types.ts";

/** What a call event says about the policy: a decision and its rule, always. */
export type PolicyEventFields = CallDecision & { decision: PolicyAction; rule: string };

/** Runs a tool through the router's catch boundary (`callTool`), with what the policy decided. */
export type RunTool = (
  tool: RoutedTool,
  args: unknown,
  options: CallOptions,
  decision?: PolicyEventFields,
) => Promise<ToolCallResult>;

/**
 * An error result for a call the policy stopped, with its event and its audit record (after
 * waiting for room in the audit sink, so a full sink holds the caller back; a record that found
 * no room in time is still written, since nothing ran).
 *
 * @param stop The code and the text for the model.
 * @param context Settings, user, the decision's fields, the arguments and the pending approval.
 */
export async function stoppedResult(
  tool: { name: string; source?: SourceKind },
  stop: { code: ErrorCode; text: string },
  context: {
    settings: CallSettings;
    userId?: string;
    fields: PolicyEventFields;
    args?: unknown;
    approval?: PendingApproval;
    signal?: AbortSignal;
  },
): Promise<ToolCallResult> {
  const result = errorResult(tool, stop);
  if (context.approval !== undefined) result.approval = context.approval;
  const { settings } = context;
  if (settings.onEvent === undefined && settings.audit === undefined) return result;
  emitEvent(settings, await recordDecision(tool, { ...context, code: stop.code }));
  return result;
}

/**
 * The result of settling an approval that runs nothing (`permission_denied` unless `code` says
 * otherwise), recorded as an ask whose approval was `invalid` (or `rejected` by the person), with
 * what the approval names of itself: its tool, rule, id and arguments.
 *
 * @param given The approval as given (anything), or an id.
 * @param stop The text, and the tool when it was found.
 */
export function refusedApproval(
  given: unknown,
  stop: { text: string; tool?: RoutedTool; code?: ErrorCode; approval?: "rejected" },
  context: { settings: CallSettings; userId?: string; signal?: AbortSignal },
): Promise<ToolCallResult> {
  const approval = given !== null && typeof given === "object"
    ? given as Partial<PendingApproval>
    : undefined;
  return stoppedResult(stop.tool ?? { name: approval ? String(approval.tool) : "" }, {
    code: stop.code ?? "permission_denied",
    text: stop.text,
  }, {
    ...context,
    args: approval?.arguments,
    fields: {
      decision: "ask",
      rule: approval ? String(approval.rule) : "",
      approval: stop.approval ?? "invalid",
      ...(typeof approval?.id === "string" ? { approvalId: approval.id } : {}),
    },
  });
}

/**
 * The event of a decision that ran nothing (a stop, or an ask before the person answers) and its
 * audit record, written after waiting for room in the sink like every record; a record that found
 * no room in time is written all the same: what it records did not run.
 *
 * @param decided The code, the decision's fields, who asked with which arguments, the call's signal.
 * @returns The event (for `onEvent` when it ends the call: a call has one event).
 */
export async function recordDecision(
  tool: { name: string; source?: SourceKind },
  decided: {
    code: ErrorCode;
    settings: CallSettings;
    userId?: string;
    fields: PolicyEventFields;
    args?: unknown;
    signal?: AbortSignal;
  },
): Promise<ToolCallEvent> {
  const { settings, signal } = decided;
  const event: ToolCallEvent = {
    type: "call",
    tool: tool.name,
    source: tool.source,
    userId: decided.userId,
    durationMs: 0,
    isError: true,
    code: decided.code,
    ...decided.fields,
  };
  if (settings.audit !== undefined) {
    await auditRoom(settings, tool.name, { signal });
    // A tool the set has (not a name it does not know) names its server and origin.
    const routed = "execute" in tool ? tool as RoutedTool : undefined;
    await auditEvent(event, decided.args, { settings, tool: routed });
  }
  return event;
}

/**
 * Says which rule decided, for messages.
 *
 * @returns For example `policy rule "bash(rm *)" of the router`.
 */
export function describeRule(decision: Pick<PolicyDecision, "rule" | "scope">): string {
  const owner = decision.scope === "router" ? "the router's policy" : "this request's policy";
  return decision.rule === "default"
    ? `the default of ${owner}`
    : `policy rule ${JSON.stringify(decision.rule)} of ${owner}`;
}

/**
 * The text a model reads when a person declined its call.
 *
 * @param reason The person's reason.
 */
export function declined(name: string, reason: string | undefined): string {
  const why = reason === undefined || reason === "" ? "" : `: ${reason}`;
  return `The user declined the call to "${name}"${why}. It did not run; do not retry it unchanged`;
}
