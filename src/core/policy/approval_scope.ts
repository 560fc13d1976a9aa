import type { ErrorCode } from "../tool_error.ts";
import { isToolError } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { ApprovalAnswer } from "../policy_types.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import type { PolicyGateInit } from "./policy_gate_init.ts";
import { describeRule } from "./policy_results.ts";
import { replacedArguments } from "./replaced_arguments.ts";

/**
 * The arguments an approved call runs with: the person's edit when the answer carries one
 * (checked against the tool's schema, then by the policy: a deny refuses it), else the call's.
 *
 * @param init The gate's policies and settings.
 * @param approved The person's answer and the call's arguments, as approved.
 * @returns The arguments to run with, or why nothing runs.
 */
export function editedCall(
  init: Pick<PolicyGateInit, "engine" | "settings">,
  tool: RoutedTool,
  approved: { answer: ApprovalAnswer; args: Record<string, unknown> },
): { args: Record<string, unknown> } | { refused: { code: ErrorCode; text: string } } {
  const { answer, args } = approved;
  if (answer.arguments === undefined) return { args };
  let edited: Record<string, unknown>;
  try {
    edited = replacedArguments(tool, answer.arguments, {
      limits: init.settings.argumentLimits,
      by: "the approver",
    });
  } catch (error) {
    if (!isToolError(error)) throw error;
    return { refused: { code: error.code, text: error.message } };
  }
  // The person may approve what the policy asks about, never what it denies.
  const decision = init.engine.decide(tool, () => edited);
  if (decision.action === "deny") {
    return {
      refused: {
        code: "permission_denied",
        text: `The edited arguments of the call to "${tool.name}" are denied by ${
          describeRule(decision)
        }; it did not run`,
      },
    };
  }
  return { args: edited };
}

/**
 * Makes an approval last when the answer asks for it (`scope: "session"` or `"always"`) and no
 * `neverSticky` rule or tool forbids it: a grant for the rule that asked.
 *
 * @param init The gate's policies, grants and user.
 * @param ask The answer, the arguments asked about and run, the ask decision and the approval.
 * @returns The grant's id, or `undefined` when none was made (a store that fails makes none;
 *   the approved call runs all the same).
 */
export async function lastingGrant(
  init: Pick<PolicyGateInit, "engine" | "approvals" | "userId">,
  tool: RoutedTool,
  ask: {
    answer: ApprovalAnswer;
    args: readonly Record<string, unknown>[];
    decision: Pick<PolicyDecision, "rule" | "scope">;
    approvalId: string;
  },
): Promise<string | undefined> {
  const { answer } = ask;
  if (!answer.approved || (answer.scope !== "session" && answer.scope !== "always")) return;
  if (ask.args.some((args) => init.engine.neverSticky(tool, args))) return;
  try {
    const grant = await init.approvals.grants.grant(tool, {
      userId: init.userId,
      decision: ask.decision,
      scope: answer.scope,
      approvalId: ask.approvalId,
      reason: answer.reason,
    });
    return grant.id;
  } catch {
    return undefined;
  }
}
