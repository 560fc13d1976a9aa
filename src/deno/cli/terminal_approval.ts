import type { ApprovalHandler } from "../../core/policy_types.ts";
import { summarizeShown } from "../../core/policy/shown_arguments.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Asks a person a question and returns the answer line (`null`: none); `hidden` keeps the typed
 * answer off the screen (a password).
 */
export type Ask = (question: string, options?: { readonly hidden?: boolean }) => Promise<
  string | null
>;

/**
 * Asks a question on the terminal (stderr) and reads one line of stdin, or `undefined` when
 * stdin is not a terminal: nobody can be asked. A hidden answer is read with the terminal's echo
 * off (raw mode: Enter ends it, Backspace erases, Ctrl-C or Ctrl-D on an empty line give no
 * answer), so a password stays off the screen and out of the scrollback.
 */
export function terminalAsker(): Ask | undefined {
  if (!Deno.stdin.isTerminal()) return undefined;
  return async (question, options = {}) => {
    // Echo goes off before the question shows, so nothing typed after it can be echoed.
    if (options.hidden === true) return await readHidden(question);
    Deno.stderr.writeSync(encoder.encode(question));
    const buffer = new Uint8Array(1024);
    let line = "";
    while (!line.includes("\n")) {
      const read = await Deno.stdin.read(buffer);
      if (read === null) return line === "" ? null : line;
      line += decoder.decode(buffer.subarray(0, read));
    }
    return line.slice(0, line.indexOf("\n"));
  };
}

async function readHidden(question: string): Promise<string | null> {
  Deno.stdin.setRaw(true);
  const buffer = new Uint8Array(256);
  let answer = "";
  try {
    Deno.stderr.writeSync(encoder.encode(question));
    for (;;) {
      const read = await Deno.stdin.read(buffer);
      if (read === null) return answer === "" ? null : answer;
      for (const char of decoder.decode(buffer.subarray(0, read), { stream: true })) {
        if (char === "\r" || char === "\n") return answer;
        if (char === "\u0003" || (char === "\u0004" && answer === "")) return null;
        if (char === "\u007f" || char === "\b") answer = [...answer].slice(0, -1).join("");
        else if (char >= " ") answer += char;
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
    Deno.stderr.writeSync(encoder.encode("\n"));
  }
}

/** Most characters of the arguments in the question before the rest is offered with "show". */
const QUESTION_CHARS = 2_000;

/**
 * An approval handler that asks a person: once / session / always / no. "y", "yes", "o" or
 * "once" approves this call; "s" or "session" also the later calls the same rule asks about,
 * for the session; "a" or "always" until revoked (`toolroute grants revoke`); anything else
 * declines, and what they typed after "n" becomes the reason. The question shows the arguments with control,
 * bidi and invisible characters made visible; past 2,000 characters it says how many more there
 * are, and "show" prints all of them before asking again.
 *
 * @param ask Asks a question and returns the answer line (`null` at the end of input).
 */
export function terminalApprover(
  ask: (question: string) => Promise<string | null>,
): ApprovalHandler {
  return async (request) => {
    const rule = request.rule === "default" ? "the policy's default" : `rule ${request.rule}`;
    const cut = request.shown.length > QUESTION_CHARS;
    let shown = cut ? summarizeShown(request.shown, QUESTION_CHARS) : request.shown;
    for (;;) {
      const answer = (await ask(
        `toolroute: allow ${request.tool} with these arguments?\n${shown}\n(asked by ${rule}) [once/session/always/No${
          cut ? '; "show" prints every argument' : ""
        }] `,
      ))?.trim() ?? "";
      if (cut && /^show$/i.test(answer)) {
        shown = request.shown;
        continue;
      }
      if (/^(y(es)?|o(nce)?)$/i.test(answer)) {
        return { approved: true, shownDigest: request.shownDigest };
      }
      const lasting = /^(s(ession)?|a(lways)?)$/i.exec(answer);
      if (lasting !== null) {
        return {
          approved: true,
          shownDigest: request.shownDigest,
          scope: /^s/i.test(lasting[1]) ? "session" : "always",
        };
      }
      const reason = answer.replace(/^no?\b[\s,:-]*/i, "");
      return { approved: false, reason: reason === "" ? "the user answered no" : reason };
    }
  };
}
