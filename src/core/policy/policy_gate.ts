import { parseArguments } from "../parse_arguments.ts";
import type { CallOptions, ToolCallResult } from "../tool_call_types.ts";
import { type ErrorCode, isToolError } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import { issueApproval } from "./issue_approval.ts";
import { waitForApproval } from "./approval_wait.ts";
import type { PolicyDecision } from "./policy_engine.ts";
import {
  declined,
  describeRule,
  type PolicyEventFields,
  recordDecision,
  type RunTool,
  stoppedResult,
} from "./policy_results.ts";
import { answerFits, argumentsAsShown } from "./shown_arguments.ts";
import type { ApprovalAnswer, PendingApproval } from "../policy_types.ts";
import { settleApproval } from "./settle_approval.ts";
import type { PolicyGateInit } from "./policy_gate_init.ts";
import { approvedCall } from "./approval_scope.ts";

/**
 * Applies one request's policies to its calls: runs allowed calls, refuses denied ones, and
 * asks (a handler, or the host through a pending approval) before running the rest.
 */
export class PolicyGate {
  readonly init: PolicyGateInit;
  #pending = new Map<string, PendingApproval>();
  #runId?: string;

  /** @param init The policies, approvals, selection, user and settings. */
  constructor(init: PolicyGateInit) {
    this.init = init;
  }

  /**
   * Calls an exposed tool under the policies.
   *
   * @param options The call's options (with its own approval handler, if any).
   */
  call(
    tool: RoutedTool,
    args: unknown,
    options: CallOptions,
    run: RunTool,
  ): Promise<ToolCallResult> {
    const { engine, settings } = this.init;
    run = this.#limited(run);
    let parsed: Record<string, unknown> | undefined;
    let decision: PolicyDecision;
    try {
      decision = engine.decide(tool, () => parsed = parseArguments(args, settings.argumentLimits));
    } catch (error) {
      if (!isToolError(error)) throw error;
      return run(tool, args, options); // reports (and records) the invalid arguments; runs nothing
    }
    if (decision.action === "allow") {
      // The tool runs with the very object the policy read, never a second parse of the text.
      return run(tool, parsed ?? args, options, { decision: "allow", rule: decision.rule });
    }
    return this.#stop(tool, args, parsed, decision, options, run);
  }

  async #stop(
    tool: RoutedTool,
    args: unknown,
    parsed: Record<string, unknown> | undefined,
    decision: PolicyDecision,
    options: CallOptions,
    run: RunTool,
  ): Promise<ToolCallResult> {
    const { settings, userId } = this.init;
    const fields = { decision: decision.action, rule: decision.rule };
    const stop = (
      stopped: { code: ErrorCode; text: string },
      recorded: PolicyEventFields,
      approval?: PendingApproval,
    ) =>
      stoppedResult(tool, stopped, {
        settings,
        userId,
        args,
        signal: options.signal,
        fields: recorded,
        approval,
      });
    if (decision.action === "deny") {
      return await stop({
        code: "permission_denied",
        text: `The call to "${tool.name}" was denied by ${
          describeRule(decision)
        }; it did not run. Do not retry it; choose another way or ask the user`,
      }, fields);
    }
    try {
      parsed ??= parseArguments(args, settings.argumentLimits);
    } catch (error) {
      if (!isToolError(error)) throw error;
      return await run(tool, args, options); // reports (and records) the invalid arguments
    }
    const { engine, approvals } = this.init;
    // A grant may let the call run without asking; a store that cannot be read grants nothing.
    const granted = engine.neverSticky(tool, parsed) || !engine.covers(tool, parsed, decision)
      ? undefined
      : (await approvals.grants.find(tool, userId, decision).catch(() => undefined))?.id;
    if (granted !== undefined) {
      return await run(tool, parsed, options, {
        ...fields,
        approval: "approved",
        grantId: granted,
      });
    }
    const approval = await issueApproval(this.init, tool, { args: parsed, rule: decision.rule });
    const asked = { ...fields, approvalId: approval.id };
    const handler = options.approve ?? approvals.approve;
    if (handler === undefined) {
      this.#pending.set(approval.id, approval);
      return await stop(
        {
          code: "approval_required",
          text: `The call to "${tool.name}" needs a person's approval (${
            describeRule(decision)
          }); it has not run yet. Wait for the user's decision before relying on it`,
        },
        { ...asked, approval: "pending" },
        approval,
      );
    }
    // The ask leaves its record before anyone is asked: a question never answered still shows.
    await recordDecision(tool, {
      code: "approval_required",
      settings,
      userId,
      fields: { ...asked, approval: "pending" },
      args,
      signal: options.signal,
    });
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const started = performance.now();
    let answer;
    try {
      answer = await waitForApproval(handler, {
        id: approval.id,
        tool: tool.name,
        arguments: parsed,
        userId,
        rule: decision.rule,
        source: tool.source,
        description: tool.description,
        summary: approval.summary,
        shown: approval.shown,
        shownDigest: approval.shownDigest,
      }, { signal: options.signal, timeoutMs });
    } catch (error) {
      if (!isToolError(error)) throw error;
      return await stop({ code: error.code, text: error.message }, asked);
    }
    if (!answer.approved) {
      return await stop({
        code: "permission_denied",
        text: declined(tool.name, answer.reason),
      }, { ...asked, approval: "rejected" });
    }
    // What runs is a private copy of the arguments as they are now, and only when it is exactly
    // what the person was shown: arguments changed during the wait, or an answer given for
    // another text, run nothing.
    const now = await argumentsAsShown(parsed, { tool: tool.name, digest: approval.shownDigest });
    if (now === undefined || !answerFits(answer, approval)) {
      return await stop({
        code: "permission_denied",
        text: now === undefined
          ? `The arguments of the call to "${tool.name}" changed after they were shown for approval; it did not run. Call it again to ask anew`
          : `The approval names other arguments than the ones shown for this call to "${tool.name}"; it did not run. Call it again to ask anew`,
      }, { ...asked, approval: "invalid" });
    }
    // A person's edit replaces the arguments, checked like the model's: schema, then policy.
    const edited = await approvedCall(this.init, tool, {
      answer,
      args: now,
      decision,
      approvalId: approval.id,
    });
    if ("refused" in edited) {
      return await stop(edited.refused, { ...asked, approval: "invalid" });
    }
    const left = timeoutMs === undefined
      ? undefined
      : Math.max(1, timeoutMs - (performance.now() - started));
    return await run(tool, edited.args, { ...options, timeoutMs: left }, {
      ...asked,
      approval: "approved",
      ...edited.fields,
    });
  }

  /**
   * Approves or rejects a pending approval of this request (or one it can check).
   *
   * @param approvalOrId The approval, or the id of one this tool set issued.
   * @param context The tool lookup, call options and runner.
   * @returns The result of the call, or the text of the rejection or refusal.
   */
  settle(
    approvalOrId: PendingApproval | string,
    answer: ApprovalAnswer,
    context: {
      lookup: (name: string) => RoutedTool | undefined;
      options: CallOptions;
      run: RunTool;
    },
  ): Promise<ToolCallResult> {
    const approval = typeof approvalOrId === "string"
      ? this.#pending.get(approvalOrId) ?? approvalOrId
      : approvalOrId;
    if (typeof approval !== "string") this.#pending.delete(approval.id);
    return settleApproval(this.init, approval, {
      answer,
      ...context,
      run: this.#limited(context.run),
    });
  }

  /** The runner with the policies' limits in front, when they have any. */
  #limited(run: RunTool): RunTool {
    const { limiter, userId, settings } = this.init;
    if (limiter === undefined) return run;
    return limiter.wrap(run, {
      userId,
      settings,
      runId: () => this.#runId ??= crypto.randomUUID(),
    });
  }
}
