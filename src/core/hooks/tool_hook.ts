import type { SourceKind } from "../tool_source.ts";
import type { ToolCallResult } from "../tool_call_types.ts";
import { checkPositive } from "../check_positive.ts";

/** One call as a hook sees it. */
export interface HookCall {
  /** The tool's exposed name. */
  readonly tool: string;
  /** The tool's source. */
  readonly source: SourceKind;
  /** The arguments the call runs with: a private copy (change them by returning `{ args }`). */
  readonly args: Record<string, unknown>;
  /** The request's user. */
  readonly userId?: string;
  /** Where the tool comes from within its source (`server/tool` for MCP tools). */
  readonly origin: string;
  /** The MCP server (remote, or a local service) the tool belongs to. */
  readonly server?: string;
  /**
   * Whether the tool changes nothing by the host's word (or a `trusted` server's annotation):
   * only such calls may be repeated or answered from a cache.
   */
  readonly readOnly: boolean;
  /** Aborts with the call. */
  readonly signal: AbortSignal;
}

/** One call after it ran, as an `after` hook sees it. */
export interface HookAfterCall extends HookCall {
  /**
   * Runs the tool once more with the same arguments (already checked): what a retry does.
   * The attempt has no event or audit record of its own; the call's one reports the hook. Its
   * result has been through the `after` steps of the hooks before this one (a secret scanner).
   */
  rerun(): Promise<ToolCallResult>;
}

/**
 * What `before` returns: nothing (the call goes on), `{ args }` (rewritten arguments, checked
 * against the tool's schema and by the policy again), `{ deny: reason }` (the call does not run:
 * `permission_denied`), or `{ result }` (the call does not run; this is its result: a cache hit,
 * an open circuit). A result's code is kept when it is one of the closed set.
 */
export type HookBeforeResult =
  | void
  | undefined
  | { args: Record<string, unknown> }
  | { deny: string }
  | { result: ToolCallResult };

/**
 * A hook around tool calls: `new ToolRouter({ hooks })` for every request, or
 * `router.expose({ hooks })` for one. Hooks run in the order given, for every source, in
 * `callAll`, in `serve` and on resumed approvals, only for calls the policy let run (or a person
 * approved). A hook narrows what runs and never widens it: rewritten arguments are checked again,
 * and a hook that throws, times out or answers nonsense fails the call closed (`tool_error`; the
 * call does not run, or its result is withheld). What a hook decided appears in the call's event
 * and audit record (`hooks`).
 */
export interface ToolHook {
  /** The hook's name, in events, audit records and messages. Default: `hook N`. */
  readonly name?: string;
  /** How long each of its steps may take, in milliseconds. Default: 10 000. */
  readonly timeoutMs?: number;
  /** Before the call runs. */
  before?(call: HookCall): HookBeforeResult | Promise<HookBeforeResult>;
  /** After it ran (or a `before` answered it): nothing, or a replacement result. */
  after?(
    call: HookAfterCall,
    result: ToolCallResult,
  ): ToolCallResult | void | undefined | Promise<ToolCallResult | void | undefined>;
}

/**
 * Checks a list of hooks given by the host; throws a `TypeError` naming what is wrong.
 *
 * @param hooks The hooks, or `undefined`.
 * @param owner `router` or `request`, for the message.
 * @returns The hooks, frozen (an empty list when none).
 */
export function checkHooks(hooks: unknown, owner: "router" | "request"): readonly ToolHook[] {
  if (hooks === undefined) return [];
  const where = owner === "router" ? "Cannot create router" : "Cannot expose tools";
  if (!Array.isArray(hooks)) {
    throw new TypeError(`${where}: "hooks" must be an array of { before?, after? } objects`);
  }
  hooks.forEach((hook, index) => {
    if (hook === null || typeof hook !== "object") {
      throw new TypeError(`${where}: hook ${index + 1} must be an object with before or after`);
    }
    for (const step of ["before", "after"] as const) {
      if (hook[step] !== undefined && typeof hook[step] !== "function") {
        throw new TypeError(`${where}: "${step}" of hook ${index + 1} must be a function`);
      }
    }
    checkPositive(hook.timeoutMs, `hooks[${index}].timeoutMs`, { where });
  });
  return Object.freeze([...hooks]);
}
