import type { CallSettings, ToolCallEvent, ToolCallResult } from "../tool_call_types.ts";
import type { ErrorCode } from "../tool_error.ts";
import type { RoutedTool, SourceKind } from "../tool_source.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import type { ApprovalOutcome, PendingApproval, PolicyAction } from "../policy_types.ts";

/** What a call event says about the policy. */
export interface PolicyEventFields {
  /** The decision. */
  decision: PolicyAction;
  /** The rule that decided (`"default"` when none matched). */
  rule: string;
  /** For asks: what became of the approval. */
  approval?: ApprovalOutcome;
}

/**
 * Settings whose events carry the policy's decision; the same settings when nobody listens.
 *
 * @param settings The router's settings.
 * @param fields The decision, rule and outcome.
 * @returns Settings for `callTool`.
 */
export function withPolicyFields(settings: CallSettings, fields: PolicyEventFields): CallSettings {
  const onEvent = settings.onEvent;
  if (onEvent === undefined) return settings;
  return { ...settings, onEvent: (event) => onEvent({ ...event, ...fields }) };
}

/**
 * An error result for a call the policy stopped, with its event.
 *
 * @param tool The tool.
 * @param code The code.
 * @param text The text for the model.
 * @param context Settings, user, the decision's fields and the pending approval.
 * @returns The result.
 */
export function stoppedResult(
  tool: { name: string; source?: SourceKind },
  code: ErrorCode,
  text: string,
  context: {
    settings: CallSettings;
    userId?: string;
    fields: PolicyEventFields;
    approval?: PendingApproval;
  },
): ToolCallResult {
  const result: ToolCallResult = {
    text,
    isError: true,
    code,
    tool: tool.name,
    content: [{ type: "text", text }],
  };
  if (tool.source !== undefined) result.source = tool.source;
  if (context.approval !== undefined) result.approval = context.approval;
  const onEvent = context.settings.onEvent;
  if (onEvent !== undefined) {
    const event: ToolCallEvent = {
      type: "call",
      tool: tool.name,
      source: tool.source,
      userId: context.userId,
      durationMs: 0,
      isError: true,
      code,
      ...context.fields,
    };
    try {
      onEvent(event);
    } catch {
      // An observer's failure must not change the result.
    }
  }
  return result;
}

/**
 * Says which rule decided, for messages.
 *
 * @param decision The decision.
 * @returns For example `policy rule "bash(rm *)" of the router`.
 */
export function describeRule(decision: Pick<PolicyDecision, "rule" | "scope">): string {
  const owner = decision.scope === "router" ? "the router's policy" : "this request's policy";
  return decision.rule === "default"
    ? `the default of ${owner}`
    : `policy rule ${JSON.stringify(decision.rule)} of ${owner}`;
}

/**
 * A short, human-readable summary of a call's arguments: the command of `bash`, the path of the
 * file tools, the paths of a patch, compact JSON otherwise; at most 300 characters.
 *
 * @param tool The tool.
 * @param args The arguments.
 * @returns The summary.
 */
export function summarizeArguments(tool: RoutedTool, args: Record<string, unknown>): string {
  let text: string;
  if (tool.source === "builtin" && typeof args.command === "string") text = args.command;
  else if (tool.source === "builtin" && typeof args.patch === "string") {
    text = `patch of ${declaredPaths(tool, args) || "no file"}`;
  } else if (tool.source === "builtin" && typeof args.path === "string") text = args.path;
  else text = JSON.stringify(args) ?? "{}";
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** The paths a tool declares for a call (the ones its policy rules read), comma-separated. */
function declaredPaths(tool: RoutedTool, args: Record<string, unknown>): string {
  try {
    const subjects = tool.policySubjects?.(args);
    if (subjects?.kind === "paths") return subjects.paths.join(", ");
  } catch {
    // A patch that does not parse names no file; it will fail without changing any.
  }
  return "";
}

/**
 * The text a model reads when a person declined its call.
 *
 * @param name The tool.
 * @param reason The person's reason.
 * @returns The text.
 */
export function declined(name: string, reason: string | undefined): string {
  const why = reason === undefined || reason === "" ? "" : `: ${reason}`;
  return `The user declined the call to "${name}"${why}. It did not run; do not retry it unchanged`;
}
