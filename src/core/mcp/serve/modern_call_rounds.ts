import type { CallOptions, ToolCallResult } from "../../tool_call_types.ts";
import type { ToolSet } from "../../tool_set.ts";
import type { ToolElicitation, ToolElicitationResult } from "../../tool_source.ts";
import type { PendingApproval } from "../../policy_types.ts";
import { showArguments } from "../../policy/shown_arguments.ts";
import { sha256Hex } from "../../sha256_hex.ts";
import { canonicalJson } from "../../canonical_json.ts";
import { toolSetSigner } from "../../tool_set_signer.ts";
import type { ApprovalSigner } from "../../policy/approval_signer.ts";
import { inputRequired, type InputRequiredResult } from "../mcp_sdk.ts";
import {
  approvalAnswerOf,
  approvalForm,
  cannotAsk,
  checkLinkShown,
  type ElicitationCapability,
} from "./approval_elicitation.ts";

/** The key of the approval question in an `input_required` result's `inputRequests`. */
export const APPROVAL_KEY = "approval";

/**
 * What a call carries from one round to the next in `requestState`. It comes back from the
 * client, so nothing in it is trusted: the approval is the router's signed one (the router checks
 * its signature, user, expiry and single use), and a tool's questions and answers are signed by
 * the router's signer too, bound to the user, the tool and its arguments for a while (see
 * {@linkcode Questions}); an answer is taken only for the very question asked (its digest).
 */
interface RoundState {
  /** The approval asked for in the previous round. */
  approval?: PendingApproval;
  /** A tool's questions and the answers so far, signed. */
  questions?: Questions;
}

/**
 * A tool's questions of the previous round and the answers of earlier ones, as the client holds
 * them between rounds: signed (MCP 2026-07-28 has servers treat the echoed `requestState` as the
 * client's, and refuse what fails a check where it decides anything), bound to the user, the tool
 * and its arguments, and for `ROUND_TTL_MS`. One that fails a check counts for nothing: the tool
 * asks again.
 */
interface Questions {
  /** Questions a tool asked in the previous round: key to the question's digest. */
  asked: Record<string, string>;
  /** Answers of earlier rounds: key to the question's digest and the answer. */
  answers: Record<string, { digest: string; answer: ToolElicitationResult }>;
  /** The user of the tool set, or `null`. */
  user: string | null;
  tool: string;
  /** The SHA-256 of the call's arguments (canonical JSON). */
  args: string;
  /** When the state stops counting (epoch milliseconds). */
  expires: number;
  signature?: string;
}

/** How long a tool's questions wait for their answers. */
const ROUND_TTL_MS = 15 * 60_000;

/** One round of a 2026-07-28 `tools/call`: the client's answers and what it can be asked. */
export interface CallRound {
  /** The answers the retried request carries (`inputResponses`), untrusted. */
  inputResponses?: Record<string, unknown>;
  /** The `requestState` the retried request echoes, untrusted. */
  requestState?: unknown;
  capability: ElicitationCapability;
}

/**
 * Answers a `tools/call` of the 2026-07-28 era, which has no server-to-client requests: a
 * policy's ask, or a tool's question to the person (URL mode included), ends the round with an
 * `input_required` result that embeds the question (`elicitation/create`); the client asks the
 * person and retries the call with the answer.
 *
 * - An ask carries the router's signed approval in `requestState`; the retry runs it through
 *   `ToolSet#approve` / `#reject`, so the approval is bound to the arguments shown, to the user,
 *   expires and is used once, as in the 2025 era. A retry with other arguments asks anew.
 * - A tool's question is answered on the retry, where the call runs again from its start: the
 *   n-th question of the run gets the answer given to the n-th question of the previous round,
 *   and only when it is the same question. A call that was approved cannot ask mid-call this
 *   way (its approval is used up): its questions fail, as for a client that cannot answer.
 */
export async function callInRounds(
  toolSet: ToolSet,
  call: { name: string; args: unknown; options: CallOptions; round: CallRound },
): Promise<ToolCallResult | InputRequiredResult> {
  const { round } = call;
  const state = readState(round.requestState);
  const { capability } = round;
  const form = capability !== undefined && capability !== null &&
    (capability.form !== undefined || capability.url === undefined);
  const approval = state.approval;
  if (approval !== undefined && fitsApproval(approval, call)) {
    const reply = elicitAnswer(round.inputResponses?.[APPROVAL_KEY]);
    if (reply !== undefined) {
      const answer = approvalAnswerOf(reply);
      return answer.approved
        ? await toolSet.approve(approval, {
          ...call.options,
          ...(answer.shownDigest === undefined ? {} : { shownDigest: answer.shownDigest }),
        })
        : await toolSet.reject(approval, answer.reason);
    }
  }
  const signer = toolSetSigner(toolSet);
  const binding = {
    user: toolSet.userId ?? null,
    tool: call.name,
    args: await argumentsDigest(call.args),
  };
  const earlier = await openQuestions(state.questions, { binding, signer });
  const answers = { ...earlier?.answers };
  for (const [key, digest] of Object.entries(earlier?.asked ?? {})) {
    const answer = elicitAnswer(round.inputResponses?.[key]);
    if (answer !== undefined) answers[key] = { digest, answer };
  }
  const asked = new Map<string, { digest: string; request: ToolElicitation }>();
  let count = 0;
  const onElicitation = capability === undefined || capability === null
    ? undefined
    : async (request: ToolElicitation): Promise<ToolElicitationResult> => {
      const key = `input-${count++}`;
      const digest = await questionDigest(request);
      const known = answers[key];
      if (known !== undefined && known.digest === digest) return known.answer;
      checkLinkShown(request, capability);
      if (request.url === undefined && !form) {
        throw new Error("The MCP client did not declare form elicitation: it cannot be asked");
      }
      asked.set(key, { digest, request });
      throw new Error(
        "The person's answer comes in the client's next round (MCP 2026-07-28): this run stops here and the call runs again with the answer",
      );
    };
  const result = await toolSet.call(call.name, call.args, { ...call.options, onElicitation });
  if (asked.size > 0) {
    const inputRequests: Record<string, ReturnType<typeof inputRequired.elicit>> = {};
    const questions: Questions = {
      asked: {},
      answers,
      ...binding,
      expires: Date.now() + ROUND_TTL_MS,
    };
    for (const [key, { digest, request }] of asked) {
      questions.asked[key] = digest;
      inputRequests[key] = request.url === undefined
        ? inputRequired.elicit({
          message: request.message,
          requestedSchema: request.requestedSchema as never,
        })
        : inputRequired.elicitUrl({ message: request.message, url: request.url });
    }
    questions.signature = await signer.sign("round", questions);
    const next: RoundState = { questions };
    return inputRequired({ inputRequests, requestState: JSON.stringify(next) });
  }
  if (result.code === "approval_required" && result.approval !== undefined && form) {
    const next: RoundState = { approval: result.approval };
    return inputRequired({
      inputRequests: {
        [APPROVAL_KEY]: inputRequired.elicit(approvalForm(result.approval) as never),
      },
      requestState: JSON.stringify(next),
    });
  }
  return cannotAsk(result, call.name);
}

/** The state echoed back, or nothing when it is not the shape this server sends. */
function readState(raw: unknown): RoundState {
  if (typeof raw !== "string") return {};
  try {
    const value = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * The questions and answers an echoed state carries, when they are this server's, unchanged, for
 * this user, tool and arguments, and not expired; else nothing (the tool asks again).
 */
async function openQuestions(
  questions: unknown,
  check: { binding: Pick<Questions, "user" | "tool" | "args">; signer: ApprovalSigner },
): Promise<Pick<Questions, "asked" | "answers"> | undefined> {
  if (questions === null || typeof questions !== "object" || Array.isArray(questions)) {
    return undefined;
  }
  const sealed = questions as Partial<Questions>;
  const { binding, signer } = check;
  if (
    sealed.user !== binding.user || sealed.tool !== binding.tool || sealed.args !== binding.args ||
    typeof sealed.expires !== "number" || sealed.expires <= Date.now() ||
    !isRecord(sealed.asked) || !isRecord(sealed.answers)
  ) {
    return undefined;
  }
  // Checked last: the checks above cost no digest for a state that cannot count anyway.
  if (!(await signer.verify("round", sealed))) return undefined;
  return {
    asked: sealed.asked as Questions["asked"],
    answers: sealed.answers as Questions["answers"],
  };
}

/** The SHA-256 of a call's arguments as canonical JSON (a string is parsed first). */
async function argumentsDigest(args: unknown): Promise<string> {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // Bound as the text it is.
    }
  }
  let text: string;
  try {
    text = canonicalJson(value ?? null);
  } catch {
    text = String(value);
  }
  return await sha256Hex(text);
}

/** Whether an answer's content maps each field to a string, finite number, boolean or strings. */
function isAnswerContent(content: unknown): boolean {
  return isRecord(content) &&
    Object.values(content as object).every((field) =>
      typeof field === "string" || typeof field === "boolean" || Number.isFinite(field) ||
      (Array.isArray(field) && field.every((item) => typeof item === "string"))
    );
}

function isRecord(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether a retried call is the one the approval was asked for: same tool, same arguments. */
function fitsApproval(approval: PendingApproval, call: { name: string; args: unknown }): boolean {
  if (approval === null || typeof approval !== "object" || approval.tool !== call.name) {
    return false;
  }
  let args = call.args;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return false;
    }
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) return false;
  try {
    return showArguments(args as Record<string, unknown>) === approval.shown;
  } catch {
    return false;
  }
}

/**
 * An elicitation answer (`accept` with content, `decline`, `cancel`), or nothing. The content must
 * be MCP's shape, as the SDK checks it for the 2025 era: the tool relies on it, and what is taken
 * here is signed into the next state, whose canonical JSON must not fail on depth or fold a
 * non-finite number into `null`.
 */
function elicitAnswer(value: unknown): ToolElicitationResult | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel") return undefined;
  if (content !== undefined && !isAnswerContent(content)) return undefined;
  return content === undefined
    ? { action }
    : { action, content: content as ToolElicitationResult["content"] };
}

/** A question's digest: its text and schema, or for a link its text (links are fresh per run). */
function questionDigest(request: ToolElicitation): Promise<string> {
  return sha256Hex(
    JSON.stringify(
      request.url === undefined
        ? { message: request.message, schema: request.requestedSchema }
        : { message: request.message, url: true },
    ),
  );
}
