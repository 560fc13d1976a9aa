import type { ToolCall } from "../tool_call.ts";
import type { CallSettings } from "../tool_call_types.ts";
import type { ErrorCode } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { PolicyEngine } from "../policy/policy_engine.ts";
import { describeRule } from "../policy/policy_results.ts";
import { replacedArguments } from "../policy/replaced_arguments.ts";

/**
 * Checks the arguments a hook's `before` gave instead: against the tool's schema and limits, then
 * by the policy again, so a rewrite can narrow a call but never widen it: the arguments to run,
 * or why the call does not run.
 */
export function checkRewrite(
  tool: RoutedTool,
  given: unknown,
  context: {
    name: string;
    settings: CallSettings;
    engine?: PolicyEngine;
    call: ToolCall;
  },
): { args: Record<string, unknown> } | { refused: { code: ErrorCode; text: string } } {
  const by = `hook "${context.name}"`;
  const replaced = replacedArguments(tool, given, { limits: context.settings.argumentLimits, by });
  if ("refused" in replaced) return replaced;
  const { args } = replaced;
  const { engine } = context;
  if (engine === undefined) return { args };
  // A rewrite narrows: it runs when the policy allows it, or when the rule that asked about the
  // call (and was answered) asks about it too and covers it; never when it needs more.
  const now = engine.decide(tool, () => args);
  const before = context.call.decision;
  if (now.action === "allow") return { args };
  if (
    now.action === "ask" && before?.decision === "ask" && before.approval === "approved" &&
    before.rule === now.rule && engine.covers(tool, args, now)
  ) return { args };
  return {
    refused: {
      code: "permission_denied",
      text: now.action === "deny"
        ? `The arguments ${by} gave for "${tool.name}" are denied by ${
          describeRule(now)
        }; the call did not run`
        : `The arguments ${by} gave for "${tool.name}" would need a person's approval (${
          describeRule(now)
        }); the call did not run`,
    },
  };
}
