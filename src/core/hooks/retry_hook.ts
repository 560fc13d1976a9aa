import { delay } from "@std/async";
import type { ToolCallResult } from "../tool_call_types.ts";
import type { ToolHook } from "./tool_hook.ts";
import { isTransientFailure } from "./transient_failure.ts";
import { checkPositive, numberAtLeast } from "../check_positive.ts";

/** Options of {@linkcode retryHook}. */
export interface RetryHookOptions {
  /** Most attempts after the first. Default: 2. */
  retries?: number;
  /** The wait before the first retry, doubled before each next one, in milliseconds. Default: 200. */
  backoffMs?: number;
  /** How long the whole retrying may take, in milliseconds (the hook's `timeoutMs`). Default: 60 000. */
  timeoutMs?: number;
}

/**
 * A hook that runs a call again when it failed transiently (a timeout, an HTTP 5xx, a dropped
 * connection: `timeout` or `upstream_unavailable`), only for tools that are read-only by the
 * host's word or a `trusted` server's annotation (`HookCall.readOnly`): a write is never
 * repeated. Each attempt runs the same, already checked arguments; the call's event and audit
 * record report the retry (`hooks: [{ hook: "retry", action: "replace" }]`) when it changed the
 * result.
 *
 * @example Retry a flaky read-only tool
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { retryHook } from "@toolroute/toolroute/hooks";
 * import { ToolError } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * let calls = 0;
 * const lookup = defineTool({
 *   name: "lookup",
 *   description: "Looks a word up",
 *   input: z.object({ word: z.string() }),
 *   readOnly: true,
 *   run: ({ word }) => {
 *     if (++calls === 1) throw new ToolError("upstream_unavailable", "the dictionary is down");
 *     return `${word}: a greeting`;
 *   },
 * });
 * const router = new ToolRouter({ functions: [lookup], hooks: [retryHook({ backoffMs: 1 })] });
 * const tools = await router.expose({ functions: ["lookup"] });
 * assertEquals(await tools.invoke("lookup", { word: "hello" }), "hello: a greeting");
 * assertEquals(calls, 2);
 * ```
 *
 * @param options Retries, backoff and the time bound.
 * @returns The hook.
 */
export function retryHook(options: RetryHookOptions = {}): ToolHook {
  const where = "Cannot make the retry hook";
  checkPositive(options.retries, "retries", { where, min: 0 });
  const retries = options.retries ?? 2;
  const backoffMs = numberAtLeast(options.backoffMs, "backoffMs", { where, min: 0, fallback: 200 });
  return Object.freeze<ToolHook>({
    name: "retry",
    timeoutMs: options.timeoutMs ?? 60_000,
    async after(call, result: ToolCallResult) {
      if (!call.readOnly || !isTransientFailure(result)) return undefined;
      let last = result;
      for (let attempt = 0; attempt < retries && isTransientFailure(last); attempt++) {
        // An abort ends the wait early (std's delay rejects then): the check below stops.
        await delay(backoffMs * 2 ** attempt, { signal: call.signal }).catch(() => {});
        if (call.signal.aborted) break;
        last = await call.rerun();
      }
      return last === result ? undefined : last;
    },
  });
}
