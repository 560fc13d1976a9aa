import type { CallOptions, ToolCallResult } from "../tool_call_types.ts";
import type { RoutedTool } from "../tool_source.ts";
import { type ApprovalSigner, toolHash } from "./approval_signer.ts";
import type { PolicyGateInit, RunTool } from "./policy_gate.ts";
import { declined, describeRule, stoppedResult, withPolicyFields } from "./policy_results.ts";
import type { ApprovalAnswer, PendingApproval } from "../policy_types.ts";

/**
 * Settles a pending approval: checks its signature, lifetime, single use, user, tool definition
 * and the policies as they are now; then runs the call (approved) or returns the rejection.
 * Anything wrong runs nothing and returns `permission_denied`.
 *
 * @param init The gate's policies, approvals, user and settings.
 * @param approval The approval, or an id this tool set does not know.
 * @param answer The person's decision.
 * @param context The tool lookup, call options and runner.
 * @returns The call's result, or the refusal.
 */
export async function settleApproval(
  init: PolicyGateInit,
  approval: PendingApproval | string,
  answer: ApprovalAnswer,
  context: {
    lookup: (name: string) => RoutedTool | undefined;
    options: CallOptions;
    run: RunTool;
  },
): Promise<ToolCallResult> {
  const { settings, userId, approvals } = init;
  const refuse = (text: string, tool?: RoutedTool) =>
    stoppedResult(
      tool ?? { name: typeof approval === "object" ? String(approval.tool) : "" },
      "permission_denied",
      text,
      {
        settings,
        userId,
        fields: {
          decision: "ask",
          rule: typeof approval === "object" ? String(approval.rule) : "",
          approval: "invalid",
        },
      },
    );
  if (typeof approval === "string") {
    return refuse(
      `Approval ${
        JSON.stringify(approval)
      } is unknown to this tool set; nothing ran. Pass the approval object itself`,
    );
  }
  if (!(await approvalIsGenuine(approvals.signer, approval))) {
    return refuse(
      "The approval was changed after it was issued, or another router issued it; nothing ran",
    );
  }
  const name = approval.tool;
  if (Date.parse(approval.expiresAt) <= Date.now()) {
    return refuse(
      `The approval of the call to "${name}" expired at ${approval.expiresAt}; nothing ran. Call the tool again to ask anew`,
    );
  }
  if (approval.userId !== userId) {
    return refuse(`The approval of the call to "${name}" was issued for another user; nothing ran`);
  }
  const tool = context.lookup(name);
  if (tool === undefined) {
    return refuse(`The approval's tool "${name}" is no longer exposed; nothing ran`);
  }
  if ((await toolHash(tool)) !== approval.toolHash) {
    return refuse(
      `The tool "${name}" changed since the approval was requested; nothing ran. Call it again to ask anew`,
      tool,
    );
  }
  if (answer.approved) {
    const now = init.engine.decide(tool, () => approval.arguments);
    if (now.action === "deny") {
      return refuse(
        `The call to "${name}" is now denied by ${describeRule(now)}; it did not run`,
        tool,
      );
    }
  }
  const expireIn = Math.max(1, Date.parse(approval.expiresAt) - Date.now());
  let claimed: boolean;
  try {
    claimed = await approvals.store.setIfAbsent(
      ["approvals", "used", approval.id],
      { tool: name, approved: answer.approved, at: new Date().toISOString() },
      { expireIn },
    );
  } catch (error) {
    return refuse(
      `The approval of the call to "${name}" could not be recorded as used (${
        error instanceof Error ? error.message : String(error)
      }); nothing ran. Try again`,
      tool,
    );
  }
  if (!claimed) {
    return refuse(`The approval of the call to "${name}" was already used; nothing ran`, tool);
  }
  const fields = { decision: "ask" as const, rule: approval.rule };
  if (!answer.approved) {
    return stoppedResult(tool, "permission_denied", declined(name, answer.reason), {
      settings,
      userId,
      fields: { ...fields, approval: "rejected" },
    });
  }
  return await context.run(
    tool,
    approval.arguments,
    context.options,
    withPolicyFields(settings, { ...fields, approval: "approved" }),
  );
}

/**
 * Whether an approval is well formed and its signature holds.
 *
 * @param signer The router's signer.
 * @param approval Anything.
 * @returns `true` when no field changed since the router signed it.
 */
export async function approvalIsGenuine(
  signer: ApprovalSigner,
  approval: unknown,
): Promise<boolean> {
  return wellFormed(approval) && await signer.verify(approval);
}

function wellFormed(value: unknown): value is PendingApproval {
  if (value === null || typeof value !== "object") return false;
  const approval = value as Record<string, unknown>;
  const strings = [
    "id",
    "tool",
    "rule",
    "source",
    "requestedAt",
    "expiresAt",
    "toolHash",
    "signature",
  ];
  return strings.every((key) => typeof approval[key] === "string") &&
    approval.arguments !== null && typeof approval.arguments === "object" &&
    !Array.isArray(approval.arguments) &&
    approval.selection !== null && typeof approval.selection === "object" &&
    (approval.userId === undefined || typeof approval.userId === "string");
}
