import type { ToolCallResult } from "../../tool_call_types.ts";
import type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from "../../policy_types.ts";
import { summarizeShown } from "../../policy/shown_arguments.ts";

/** Sends a request to the client, related to the current request (the SDK's `mcpReq.send`). */
export type SendToClient = (
  request: { method: string; params: Record<string, unknown> },
  options?: { signal?: AbortSignal },
) => Promise<{ action: string; content?: Record<string, unknown> }>;

/** The client's elicitation capability, as it declared it at initialisation. */
export type ElicitationCapability = { form?: unknown; url?: unknown } | undefined;

/**
 * Throws when a tool's question is a link (URL elicitation) and the client did not declare URL
 * elicitation: the link is never sent as form text, which the client may pass to the model.
 */
export function checkLinkShown(request: { url?: string }, capability: ElicitationCapability): void {
  if (request.url !== undefined && capability?.url === undefined) {
    throw new Error("The MCP client did not declare URL elicitation: it cannot show a link");
  }
}

/**
 * Turns an `approval_required` result into the text for a client that cannot be asked (no
 * elicitation declared); any other result is returned as it is.
 */
export function cannotAsk(result: ToolCallResult, name: string): ToolCallResult {
  if (result.code !== "approval_required") return result;
  const rule = result.approval?.rule;
  const text = `Calling "${name}" requires approval${
    rule === undefined || rule === "default" ? "" : ` (policy rule ${JSON.stringify(rule)})`
  } and this client cannot be asked: it declared no elicitation (on this connection, or in this request's capabilities; a stateless 2025 server never learns it). The call did not run`;
  return { ...result, text, content: [{ type: "text", text }] };
}

/**
 * An approval handler that asks the client through `elicitation/create` (form mode: approve or
 * decline, an optional reason, for how long (`once`, `session`, `always`), and the digest of the arguments shown, which the answer may send
 * back), or `undefined` when the client cannot be asked. The message shows the full arguments
 * with control, bidi and invisible characters made visible.
 */
export function elicitationApprover(
  capability: ElicitationCapability,
  send: SendToClient,
): ApprovalHandler | undefined {
  if (capability === undefined || capability === null) return undefined;
  const form = capability.form !== undefined;
  // An empty capability means form mode (the 2025-06-18 protocol); url-only clients cannot answer.
  if (!form && capability.url !== undefined) return undefined;
  return async (request): Promise<ApprovalAnswer> => {
    const params: Record<string, unknown> = approvalForm(request);
    if (form) params.mode = "form";
    const answer = await send({ method: "elicitation/create", params }, { signal: request.signal });
    return approvalAnswerOf(answer);
  };
}

/** What an approval question shows: the tool, the rule and the arguments as a person sees them. */
export type ApprovalQuestion = Pick<
  ApprovalRequest,
  "tool" | "rule" | "summary" | "shown" | "shownDigest"
>;

/**
 * The form-mode elicitation that asks a person to approve a call (both eras use it: pushed as
 * `elicitation/create` in 2025, embedded in an `input_required` result in 2026-07-28).
 */
export function approvalForm(
  request: ApprovalQuestion,
): { message: string; requestedSchema: Record<string, unknown> } {
  return {
    message: approvalMessage(request),
    requestedSchema: {
      type: "object",
      properties: {
        approve: {
          type: "boolean",
          title: `Run ${request.tool}`,
          description: `Arguments: ${request.summary}`,
          default: false,
        },
        reason: { type: "string", title: "Reason (optional)" },
        scope: {
          type: "string",
          title: "For how long",
          description:
            `once: this call only; session: also later calls of ${request.tool} that the same rule asks about, for some hours; always: until revoked`,
          enum: ["once", "session", "always"],
          default: "once",
        },
        shownDigest: {
          type: "string",
          title: "Approves exactly the arguments shown (leave as it is)",
          default: request.shownDigest,
        },
      },
      required: ["approve"],
    },
  };
}

/**
 * Reads a client's answer to {@linkcode approvalForm}: only an accepted form with `approve: true`
 * approves, and a digest it sends back is kept (an approval of another text then runs nothing).
 */
export function approvalAnswerOf(
  answer: { action?: unknown; content?: Record<string, unknown> },
): ApprovalAnswer {
  // A client's content may be anything: optional chaining reads nothing from null or a primitive.
  const content = answer.content;
  const reason = typeof content?.reason === "string" && content.reason !== ""
    ? content.reason
    : undefined;
  if (answer.action === "accept") {
    if (content?.approve !== true) {
      return { approved: false, reason: reason ?? "the user did not approve it" };
    }
    // A digest sent back must be this call's: an approval kept from another text fits nothing.
    const digest = content?.shownDigest;
    const scope = content?.scope;
    return {
      approved: true,
      ...(digest === undefined ? {} : { shownDigest: String(digest) }),
      // Anything but a scope the form offered is this call only.
      ...(scope === "session" || scope === "always" ? { scope } : {}),
    };
  }
  return {
    approved: false,
    reason: reason ??
      (answer.action === "decline" ? "the user declined" : "the user dismissed the question"),
  };
}

/** Most characters of the arguments an elicitation message carries. */
const MESSAGE_CHARS = 100_000;

/**
 * The question a person reads: the tool, the full arguments made visible (or, past 100,000
 * characters, their start and how much is not shown), the rule that asked.
 */
function approvalMessage(request: ApprovalQuestion): string {
  const shown = request.shown.length <= MESSAGE_CHARS
    ? request.shown
    : `${
      summarizeShown(request.shown, MESSAGE_CHARS)
    }: too long for this question; decline unless you can check all of it`;
  return `Allow the tool "${request.tool}" to run with these arguments?\n${shown}\n(asked by ${
    request.rule === "default" ? "the policy's default" : `the rule ${request.rule}`
  }; control and invisible characters are shown as escapes such as \\u202E, long runs of blanks as \\[400 × space])`;
}
