import type { CallOptions, ToolCallResult } from "../tool_call_types.ts";
import { type ErrorCode, errorMessage } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import { type ApprovalSigner, toolHash } from "./approval_signer.ts";
import type { PolicyGateInit } from "./policy_gate_init.ts";
import { declined, describeRule, refusedApproval, type RunTool } from "./policy_results.ts";
import { answerFits, argumentsAsShown, showArguments } from "./shown_arguments.ts";
import type { ApprovalAnswer, PendingApproval } from "../policy_types.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import { approvedCall } from "./approval_scope.ts";

/**
 * Settles a pending approval: checks its signature, lifetime, single use, user, tool definition,
 * that it is bound to the arguments shown, and the policies as they are now; then runs the call
 * (approved, with a private copy of the arguments) or returns the rejection.
 * Anything wrong runs nothing and returns `permission_denied`.
 *
 * @param init The gate's policies, approvals, user and settings.
 * @param given The approval, or an id this tool set does not know.
 * @param context The person's decision, the tool lookup, call options and runner.
 * @returns The call's result, or the refusal.
 */
export async function settleApproval(
  init: PolicyGateInit,
  given: PendingApproval | string,
  context: {
    answer: ApprovalAnswer;
    lookup: (name: string) => RoutedTool | undefined;
    options: CallOptions;
    run: RunTool;
  },
): Promise<ToolCallResult> {
  const { answer } = context;
  const { settings, userId, approvals } = init;
  // A private copy first: what is checked is what runs, whatever the caller does to its object.
  const approval = typeof given === "string" ? given : plainCopy(given);
  const refuse = (
    text: string,
    tool?: RoutedTool,
    stop: { code?: ErrorCode; approval?: "rejected" } = {},
  ) =>
    refusedApproval(approval, { text, tool, ...stop }, {
      settings,
      userId,
      signal: context.options.signal,
    });
  if (typeof approval === "string") {
    return await refuse(
      `Approval ${
        JSON.stringify(approval)
      } is unknown to this tool set; nothing ran. Pass the approval object itself`,
    );
  }
  if (approval === undefined || !(await approvalIsGenuine(approvals.signer, approval))) {
    return await refuse(
      "The approval was changed after it was issued, or another router issued it; nothing ran",
    );
  }
  const name = approval.tool;
  if (Date.parse(approval.expiresAt) <= Date.now()) {
    return await refuse(
      `The approval of the call to "${name}" expired at ${approval.expiresAt}; nothing ran. Call the tool again to ask anew`,
    );
  }
  if (approval.userId !== userId) {
    return await refuse(
      `The approval of the call to "${name}" was issued for another user; nothing ran`,
    );
  }
  const tool = context.lookup(name);
  if (tool === undefined) {
    return await refuse(`The approval's tool "${name}" is no longer exposed; nothing ran`);
  }
  if ((await toolHash(tool)) !== approval.toolHash) {
    return await refuse(
      `The tool "${name}" changed since the approval was requested; nothing ran. Call it again to ask anew`,
      tool,
    );
  }
  let args: Record<string, unknown> | undefined = approval.arguments;
  let asked: PolicyDecision | undefined;
  if (answer.approved) {
    // The approval is bound to what was shown: the text must be the one these arguments show,
    // and an answer that names a digest must name this one.
    args = approval.shown === showArguments(approval.arguments)
      ? await argumentsAsShown(approval.arguments, { tool: name, digest: approval.shownDigest })
      : undefined;
    if (args === undefined || !answerFits(answer, approval)) {
      return await refuse(
        `The approval of the call to "${name}" is not for the arguments shown to the person; nothing ran. Call it again to ask anew`,
        tool,
      );
    }
    const now = init.engine.decide(tool, () => args!);
    if (now.action === "deny") {
      return await refuse(
        `The call to "${name}" is now denied by ${describeRule(now)}; it did not run`,
        tool,
      );
    }
    asked = now;
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
    return await refuse(
      `The approval of the call to "${name}" could not be recorded as used (${
        errorMessage(error)
      }); nothing ran. Try again`,
      tool,
    );
  }
  if (!claimed) {
    return await refuse(
      `The approval of the call to "${name}" was already used; nothing ran`,
      tool,
    );
  }
  if (!answer.approved) {
    return await refuse(declined(name, answer.reason), tool, { approval: "rejected" });
  }
  const edited = await approvedCall(init, tool, {
    answer,
    args: args!,
    // A grant only for a rule that still asks: a call the policy now allows needs none.
    decision: asked?.action === "ask" ? asked : undefined,
    approvalId: approval.id,
  });
  if ("refused" in edited) {
    return await refuse(edited.refused.text, tool, { code: edited.refused.code });
  }
  return await context.run(tool, edited.args, context.options, {
    decision: "ask",
    rule: approval.rule,
    approvalId: approval.id,
    approval: "approved",
    ...edited.fields,
  });
}

/**
 * Whether an approval is well formed and its signature holds.
 *
 * @returns `true` when no field changed since the router signed it.
 */
export async function approvalIsGenuine(
  signer: ApprovalSigner,
  approval: unknown,
): Promise<boolean> {
  return wellFormed(approval) && await signer.verify("approval", approval);
}

function wellFormed(value: unknown): value is PendingApproval {
  if (value === null || typeof value !== "object") return false;
  const approval = value as Record<string, unknown>;
  const strings = [
    "id",
    "tool",
    "rule",
    "source",
    "shown",
    "shownDigest",
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

function plainCopy(approval: PendingApproval): PendingApproval | undefined {
  try {
    const copy = JSON.parse(JSON.stringify(approval) ?? "null");
    return copy !== null && typeof copy === "object" && !Array.isArray(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}
