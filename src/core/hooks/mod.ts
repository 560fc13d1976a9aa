/**
 * toolroute's hooks (`@toolroute/toolroute/hooks`): middleware around each call, for a host that
 * adds retries, a circuit breaker, a result cache or secret scanning to its router
 * (`new ToolRouter({ hooks })`), or writes a hook of its own (`ToolHook`). Web-standard, like the
 * root entry.
 *
 * @example Retry a flaky read-only tool
 * ```ts
 * import { defineTool, ToolError, ToolRouter } from "@toolroute/toolroute";
 * import { retryHook } from "@toolroute/toolroute/hooks";
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
 * @module
 */

export type { HookAfterCall, HookBeforeResult, HookCall, ToolHook } from "./tool_hook.ts";
export type { HookRecord } from "../hook_record.ts";
export { retryHook } from "./retry_hook.ts";
export type { RetryHookOptions } from "./retry_hook.ts";
export { circuitBreakerHook } from "./circuit_breaker_hook.ts";
export type { CircuitBreakerOptions } from "./circuit_breaker_hook.ts";
export { resultCacheHook } from "./result_cache_hook.ts";
export type { ResultCacheOptions } from "./result_cache_hook.ts";
export { secretScannerHook, WELL_KNOWN_SECRETS } from "./secret_scanner_hook.ts";
export type { SecretPattern, SecretScannerOptions } from "./secret_scanner_hook.ts";
