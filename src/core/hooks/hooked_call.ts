import { callTool, errorResult, type ToolCall } from "../tool_call.ts";
import type { CallSettings, ToolCallResult } from "../tool_call_types.ts";
import type { HookRecord } from "../hook_record.ts";
import {
  ERROR_CODES,
  type ErrorCode,
  errorMessage,
  isToolError,
  ToolError,
} from "../tool_error.ts";
import { parseArguments } from "../parse_arguments.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { PolicyEngine } from "../policy/policy_engine.ts";
import { describeRule, stoppedResult } from "../policy/policy_results.ts";
import { replacedArguments } from "../policy/replaced_arguments.ts";
import { type ToolContent, toolOutput } from "../tool_output.ts";
import { SeenCall } from "./_seen_call.ts";
import { untilStopped } from "../deadline_timer.ts";
import type { HookAfterCall, ToolHook } from "./tool_hook.ts";

const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
let neverAborted: AbortSignal | undefined;

/**
 * Runs one call through hooks: each `before` in order (a rewrite is checked against the schema
 * and by the policy again, a deny or a failure stops the call), then the call through the
 * router's catch boundary (`callTool`) with each `after` applied to its result before the event
 * and audit record are made, so both report the hooks and the result the model gets. Never
 * rejects for anything the call or a hook caused.
 */
export async function callHooked(
  call: ToolCall & { tool: RoutedTool },
  settings: CallSettings,
  context: { hooks: readonly ToolHook[]; engine?: PolicyEngine },
): Promise<ToolCallResult> {
  const { tool } = call;
  let args: Record<string, unknown>;
  try {
    args = parseArguments(call.args, settings.argumentLimits);
  } catch (error) {
    if (!isToolError(error)) throw error;
    return callTool(call, settings); // reports (and records) the invalid arguments
  }
  // Aborted before it started: no hook runs either (callTool reports and records it).
  if (call.options.signal?.aborted) return callTool(call, settings);
  const records: HookRecord[] = [];
  const decision = { ...call.decision, hooks: records };
  const signal = call.options.signal ?? (neverAborted ??= new AbortController().signal);
  // One view of the call serves the hooks in a row until one reads the arguments (it got its own
  // copy); the next hook then gets a fresh view, so no hook sees another's changes to its copy.
  let view: SeenCall | undefined;
  const seen = (args: Record<string, unknown>, rerun?: () => Promise<ToolCallResult>) => {
    if (view === undefined || !view.fits(args, rerun)) {
      view = new SeenCall({ tool, userId: call.userId, signal, rerun }, args);
    }
    return view;
  };
  const stop = (code: ErrorCode, text: string) =>
    stoppedResult(tool, { code, text }, {
      settings,
      userId: call.userId,
      fields: { decision: call.decision?.decision ?? "allow", rule: "default", ...decision },
      args,
      signal,
    });
  let answered: ToolCallResult | undefined;
  let answeredBy = -1;
  for (let index = 0; index < context.hooks.length; index++) {
    const hook = context.hooks[index];
    if (hook.before === undefined) continue;
    const name = hookName(hook, index);
    let step: BeforeStep;
    try {
      let out: unknown = hook.before(seen(args));
      if (isThenable(out)) out = await withinTime(out, { hook, signal });
      // Read in here: the answer's getters are the hook's code, and their throw its failure.
      step = beforeStep(out, { tool, name, settings, engine: context.engine, call });
    } catch (error) {
      records.push({ hook: name, action: "fail", reason: errorMessage(error) });
      // Aborted while the hook answered: the call's end, not the hook's failure.
      if (signal.aborted) {
        return await stop("aborted", `The call to "${tool.name}" was aborted; it did not run`);
      }
      return await stop(
        "tool_error",
        `Hook "${name}" failed before the call to "${tool.name}" (${
          errorMessage(error)
        }); the call did not run`,
      );
    }
    if (step === undefined) continue;
    if ("deny" in step) {
      records.push({ hook: name, action: "deny", reason: step.deny });
      return await stop(
        "permission_denied",
        `The call to "${tool.name}" was refused by hook "${name}": ${step.deny}. It did not run`,
      );
    }
    if ("rewritten" in step) {
      const { rewritten } = step;
      if ("refused" in rewritten) {
        records.push({ hook: name, action: "fail", reason: rewritten.refused.text });
        return await stop(rewritten.refused.code, rewritten.refused.text);
      }
      records.push({ hook: name, action: "args" });
      args = rewritten.args;
      continue;
    }
    const { result } = step;
    if (result === undefined) {
      records.push({ hook: name, action: "fail", reason: "it returned something unknown" });
      return await stop(
        "tool_error",
        `Hook "${name}" answered the call to "${tool.name}" with something that is neither arguments, a deny nor a result; the call did not run`,
      );
    }
    records.push({ hook: name, action: "result" });
    answered = result;
    answeredBy = index;
    break;
  }
  const final = args;
  // The hook that answered does not see its own answer as a result (a cache would store its hit).
  const all = afterSteps(context.hooks);
  const afters = answeredBy < 0 ? all : all.filter((step) => step.index !== answeredBy);
  let first: ToolCallResult | undefined;
  /** The after step running now: a rerun it asks for goes through the steps before it. */
  let running = 0;
  // An attempt has no record of its own, so a call the audit sink refused is never attempted;
  // a call a hook answered did not run, so there is nothing to run again (an open circuit).
  // A fresh attempt's result goes through the after steps before the one that asked for it, as
  // the first result did: else a retry's answer would pass an earlier secret scanner unread.
  const rerun = (): Promise<ToolCallResult> => {
    if (first?.code === "audit_unavailable" || answered !== undefined) {
      return Promise.resolve(first!);
    }
    const upTo = running;
    return callTool({ ...call, args: final, decision: undefined, after: undefined }, {
      ...settings,
      onEvent: undefined,
      audit: undefined,
    }).then((fresh) => afterFrom(0, fresh, upTo));
  };
  const withheld = (name: string, error: unknown, result: ToolCallResult) => {
    records.push({ hook: name, action: "fail", reason: errorMessage(error) });
    return failed(
      result,
      `Hook "${name}" failed after the call to "${tool.name}" (${
        errorMessage(error)
      }); its result is withheld`,
    );
  };
  /** What one `after` answered: the result to go on with, or the end (a withheld result). */
  const applied = (name: string, out: unknown, result: ToolCallResult) => {
    if (out === undefined || out === null) return { result, done: false };
    let replaced: ToolCallResult | undefined;
    try {
      replaced = asResult(out, { tool: tool.name, previous: result });
    } catch (error) {
      // A getter of the hook's answer threw: the hook failed.
      return { result: withheld(name, error, result), done: true };
    }
    if (replaced === undefined) {
      records.push({ hook: name, action: "fail", reason: "it returned something unknown" });
      return {
        result: failed(
          result,
          `Hook "${name}" replaced the result of "${tool.name}" with something that is not a result; the result is withheld`,
        ),
        done: true,
      };
    }
    records.push({ hook: name, action: "replace" });
    return { result: replaced, done: false };
  };
  // Synchronous steps run without a promise between them; an asynchronous one continues the rest.
  const afterFrom = (
    start: number,
    result: ToolCallResult,
    end: number = afters.length,
  ): ToolCallResult | Promise<ToolCallResult> => {
    for (let index = start; index < end; index++) {
      const { hook, name } = afters[index];
      let out: unknown;
      const outer = running;
      running = index;
      try {
        out = hook.after!(seen(final, rerun) as HookAfterCall, result);
        if (isThenable(out)) out = withinTime(out, { hook, signal });
      } catch (error) {
        return withheld(name, error, result);
      } finally {
        if (!isThenable(out)) running = outer;
      }
      if (isThenable(out)) {
        const current = result;
        return (out as Promise<unknown>).then((value) => {
          running = outer;
          const next = applied(name, value, current);
          return next.done ? next.result : afterFrom(index + 1, next.result, end);
        }, (error) => {
          running = outer;
          return withheld(name, error, current);
        });
      }
      if (out === undefined || out === null) continue; // the common no-op: nothing to apply
      const next = applied(name, out, result);
      if (next.done) return next.result;
      result = next.result;
    }
    return result;
  };
  const after = afters.length === 0 ? undefined : (result: ToolCallResult) => {
    first = result;
    return afterFrom(0, result);
  };
  const run: ToolCall = { ...call, args: final, decision, after };
  if (answered === undefined) return await callTool(run, settings);
  // An answer without running still goes through the catch boundary: one event, one record.
  const given = answered;
  return await callTool({
    ...run,
    tool: { ...tool, execute: () => replay(given) },
  }, settings);
}

/**
 * Bounds a hook step's pending answer by the hook's time bound and the call's signal. A step that
 * answers at once (no promise) needs neither: only a pending answer comes here and gets a timer.
 */
function withinTime(
  answer: PromiseLike<unknown>,
  context: { hook: ToolHook; signal: AbortSignal },
): Promise<unknown> {
  const { hook, signal } = context;
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  return untilStopped(() => answer, {
    signal,
    timeoutMs,
    aborted: () => new Error("the call was aborted"),
    timedOut: () => new Error(`it did not answer within ${timeoutMs} ms`),
  });
}

const stepsOf = new WeakMap<
  readonly ToolHook[],
  readonly { hook: ToolHook; name: string; index: number }[]
>();

/** The hooks with an `after`, named, in order: worked out once per list of hooks. */
function afterSteps(
  hooks: readonly ToolHook[],
): readonly { hook: ToolHook; name: string; index: number }[] {
  let steps = stepsOf.get(hooks);
  if (steps === undefined) {
    steps = hooks.flatMap((hook, index) =>
      hook.after === undefined ? [] : [{ hook, name: hookName(hook, index), index }]
    );
    stepsOf.set(hooks, steps);
  }
  return steps;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" &&
    typeof (value as { then?: unknown }).then === "function";
}

function hookName(hook: ToolHook, index: number): string {
  return typeof hook.name === "string" && hook.name !== "" ? hook.name : `hook ${index + 1}`;
}

/** What a `before` answered: nothing, a deny, arguments checked, or a result (`undefined`: unknown). */
type BeforeStep =
  | undefined
  | { deny: string }
  | { rewritten: ReturnType<typeof checkRewrite> }
  | { result: ToolCallResult | undefined };

/** Reads a `before`'s answer once, each field it may carry read a single time. */
function beforeStep(
  out: unknown,
  context: Parameters<typeof checkRewrite>[2] & { tool: RoutedTool },
): BeforeStep {
  if (out === undefined || out === null) return undefined;
  const { tool, ...rewrite } = context;
  if (typeof out !== "object") return { result: undefined };
  const shape = out as Record<string, unknown>;
  const deny = shape.deny;
  if (typeof deny === "string") return { deny };
  if (Object.hasOwn(shape, "args")) return { rewritten: checkRewrite(tool, shape.args, rewrite) };
  return {
    result: Object.hasOwn(shape, "result")
      ? asResult(shape.result, { tool: tool.name })
      : undefined,
  };
}

/**
 * Checks the arguments a hook's `before` gave instead: against the tool's schema and limits, then
 * by the policy again, so a rewrite can narrow a call but never widen it: the arguments to run,
 * or why the call does not run.
 */
function checkRewrite(
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

/** A hook's result as a call result; `undefined` when it is not one. */
function asResult(
  value: unknown,
  call: { tool: string; previous?: ToolCallResult },
): ToolCallResult | undefined {
  const { tool, previous } = call;
  if (value === null || typeof value !== "object") return undefined;
  const given = value as Partial<ToolCallResult>;
  if (typeof given.text !== "string") return undefined;
  const isError = given.isError === true;
  const content: ToolContent[] = Array.isArray(given.content)
    ? given.content
    : [{ type: "text", text: given.text }];
  const result: ToolCallResult = { text: given.text, isError, tool, content };
  const source = previous?.source ?? given.source;
  if (source !== undefined) result.source = source;
  if (isError) {
    result.code = ERROR_CODES.includes(given.code as ErrorCode) ? given.code : "tool_error";
  }
  if (given.structuredContent !== null && typeof given.structuredContent === "object") {
    result.structuredContent = given.structuredContent;
  }
  return result;
}

/** What a hook's `rerun` hands back: the result's output, or its error thrown. */
function replay(result: ToolCallResult): unknown {
  if (result.isError) throw new ToolError(result.code ?? "tool_error", result.text);
  return toolOutput({ content: result.content, structuredContent: result.structuredContent });
}

/** The `tool_error` result that replaces a result when a hook failed on it. */
function failed(result: ToolCallResult, text: string): ToolCallResult {
  return errorResult({ name: result.tool, source: result.source }, { code: "tool_error", text });
}
