import { errorMessage, ToolError } from "../tool_error.ts";
import { untilStopped } from "../deadline_timer.ts";
import type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from "../policy_types.ts";

/**
 * Asks an approval handler and waits for its answer under the call's signal and deadline.
 * Rejects with a `ToolError` (`aborted` or `timeout`) when either ends the wait first; a
 * handler that throws or answers nonsense counts as a rejection that says so.
 *
 * @param request The request, without its signal.
 * @param options The call's signal and deadline.
 * @returns The answer, normalised.
 */
export async function waitForApproval(
  handler: ApprovalHandler,
  request: Omit<ApprovalRequest, "signal">,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<ApprovalAnswer> {
  const outer = options.signal;
  const name = request.tool;
  if (outer?.aborted) {
    throw new ToolError("aborted", `The call to "${name}" was aborted before it started`);
  }
  return await untilStopped(async (signal) => {
    try {
      return normalise(await handler({ ...request, signal }));
    } catch (error) {
      return {
        approved: false,
        reason: `the approval could not be obtained (${errorMessage(error)})`,
      };
    }
  }, {
    signal: outer,
    timeoutMs: options.timeoutMs,
    aborted: () =>
      new ToolError("aborted", `The call to "${name}" was aborted while waiting for approval`),
    timedOut: () =>
      new ToolError(
        "timeout",
        `The call to "${name}" was not approved within ${options.timeoutMs} ms; it did not run`,
      ),
  });
}

function normalise(answer: unknown): ApprovalAnswer {
  if (typeof answer === "boolean") return { approved: answer };
  if (answer !== null && typeof answer === "object") {
    const { approved, reason, shownDigest, scope } = answer as ApprovalAnswer;
    if (typeof approved === "boolean") {
      const normal: ApprovalAnswer = { approved };
      if (typeof reason === "string" && reason !== "") normal.reason = reason;
      // An unknown scope is the narrowest one: this call only.
      if (approved && (scope === "session" || scope === "always")) normal.scope = scope;
      // Edited arguments are kept as given: anything but a fitting object is refused later.
      if (approved && Object.hasOwn(answer, "arguments")) {
        normal.arguments = (answer as ApprovalAnswer).arguments;
      }
      // A digest that is not a string is no digest: it can never fit, so the call is refused.
      if (shownDigest !== undefined) {
        normal.shownDigest = typeof shownDigest === "string" ? shownDigest : "(not a digest)";
      }
      return normal;
    }
  }
  return { approved: false, reason: "the approval handler gave no clear answer" };
}
