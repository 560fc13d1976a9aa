import type { ErrorCode } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { ApprovalAnswer } from "../policy_types.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import type { PolicyGateInit } from "./policy_gate_init.ts";
import { describeRule } from "./policy_results.ts";
import { replacedArguments } from "./replaced_arguments.ts";

/**
 * What an approved call runs with: the person's edit when the answer carries one (checked against
 * the tool's schema, then by the policy: a deny refuses it), else the approved arguments; and the
 * grant made when the answer asks for one (`scope: "session"` or `"always"`) for an ask that no
 * `neverSticky` rule or tool forbids. A store that fails makes no grant; the call runs all the same.
 *
 * @param init The gate's policies, settings, grants and user.
 * @param approved The answer, the arguments as approved (a private copy), the decision that asks
 *   now (none when the policy no longer asks: no grant) and the approval's id.
 * @returns The arguments and the event fields of the run, or why nothing runs.
 */
export async function approvedCall(
  init: Pick<PolicyGateInit, "engine" | "settings" | "approvals" | "userId">,
  tool: RoutedTool,
  approved: {
    answer: ApprovalAnswer;
    args: Record<string, unknown>;
    decision?: Pick<PolicyDecision, "rule" | "scope">;
    approvalId: string;
  },
): Promise<
  | { args: Record<string, unknown>; fields: { grantId?: string; argumentsEdited?: true } }
  | { refused: { code: ErrorCode; text: string } }
> {
  const { answer, decision } = approved;
  let args = approved.args;
  const fields: { grantId?: string; argumentsEdited?: true } = {};
  if (answer.arguments !== undefined) {
    const replaced = replacedArguments(tool, answer.arguments, {
      limits: init.settings.argumentLimits,
      by: "the approver",
    });
    if ("refused" in replaced) return replaced;
    args = replaced.args;
    // The person may approve what the policy asks about, never what it denies.
    const now = init.engine.decide(tool, () => args);
    if (now.action === "deny") {
      const text = `The edited arguments of the call to "${tool.name}" are denied by ${
        describeRule(now)
      }; it did not run`;
      return { refused: { code: "permission_denied", text } };
    }
    fields.argumentsEdited = true;
  }
  const lasting = answer.approved && (answer.scope === "session" || answer.scope === "always");
  if (
    decision !== undefined && lasting &&
    ![approved.args, args].some((asked) => init.engine.neverSticky(tool, asked))
  ) {
    try {
      const grant = await init.approvals.grants.grant(tool, {
        userId: init.userId,
        decision,
        scope: answer.scope as "session" | "always",
        approvalId: approved.approvalId,
        reason: answer.reason,
      });
      fields.grantId = grant.id;
    } catch {
      // No grant: the approved call runs all the same.
    }
  }
  return { args, fields };
}
