import { canonicalJson } from "../canonical_json.ts";
import { checkPositive } from "../check_positive.ts";
import type { ToolCallResult } from "../tool_call_types.ts";
import type { HookCall, ToolHook } from "./tool_hook.ts";

/** Options of {@linkcode resultCacheHook}. */
export interface ResultCacheOptions {
  /** How long a result is reused, in milliseconds. Default: 60 000. */
  ttlMs?: number;
  /** Most results kept; the oldest goes first. Default: 1 000. */
  maxEntries?: number;
  /**
   * Most bytes the kept results may take in memory (two per character of their text, blocks and
   * structured content), for every user of the hook together; the oldest go first, and a result
   * larger than this is not kept. Default: 64 MiB.
   */
  maxBytes?: number;
  /** The clock (for tests). Default: `Date.now`. */
  now?: () => number;
}

/**
 * A hook that answers a repeated call from the result of the same call made within `ttlMs`:
 * keyed by the user, the tool (its source and origin) and its arguments as canonical JSON (key
 * order does not matter), for tools that are read-only by the host's word or a `trusted`
 * server's annotation only, and only successful results, within `maxEntries` and `maxBytes` for
 * all users together (whole results: the budget cuts after the hooks, so a bound by count alone
 * let one user's large answers fill the process). One user never gets another's result;
 * a host that gives one user several workspaces or contexts makes one cache per request
 * (`expose({ hooks: [resultCacheHook()] })`), since the key does not see the context.
 *
 * @example Answer a repeated read from the cache
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { resultCacheHook } from "@toolroute/toolroute/hooks";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * let runs = 0;
 * const price = defineTool({
 *   name: "price",
 *   description: "The price of a product",
 *   input: z.object({ sku: z.string() }),
 *   readOnly: true,
 *   run: ({ sku }) => `${sku}: ${++runs} EUR`,
 * });
 * const router = new ToolRouter({ functions: [price], hooks: [resultCacheHook({ ttlMs: 60_000 })] });
 * const tools = await router.expose({ functions: ["price"], userId: "alice" });
 * assertEquals(await tools.invoke("price", { sku: "A1" }), "A1: 1 EUR");
 * assertEquals(await tools.invoke("price", { sku: "A1" }), "A1: 1 EUR");
 * assertEquals(runs, 1);
 * ```
 *
 * @param options The lifetime, the bound and the clock.
 * @returns The hook.
 */
export function resultCacheHook(options: ResultCacheOptions = {}): ToolHook {
  const where = "Cannot make the result cache";
  checkPositive(options.ttlMs, "ttlMs", { where });
  checkPositive(options.maxEntries, "maxEntries", { where, min: 1 });
  checkPositive(options.maxBytes, "maxBytes", { where, min: 1 });
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 1_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { result: ToolCallResult; until: number; bytes: number }>();
  let held = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    held -= entry.bytes;
    entries.delete(key);
  };
  return Object.freeze<ToolHook>({
    name: "result-cache",
    before(call: HookCall) {
      if (!call.readOnly) return undefined;
      const key = cacheKey(call);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.until <= now()) {
        drop(key);
        return undefined;
      }
      return { result: structuredClone(entry.result) };
    },
    after(call, result) {
      if (!call.readOnly || result.isError) return undefined;
      const key = cacheKey(call);
      drop(key);
      const bytes = bytesOf(result);
      if (bytes === undefined || bytes > maxBytes) return undefined;
      while (entries.size > 0 && (entries.size >= maxEntries || held + bytes > maxBytes)) {
        drop(entries.keys().next().value!);
      }
      entries.set(key, { result: structuredClone(result), until: now() + ttlMs, bytes });
      held += bytes;
      return undefined;
    },
  });
}

function cacheKey(call: HookCall): string {
  return JSON.stringify([
    call.userId === undefined ? null : call.userId,
    call.source,
    call.origin,
    call.tool,
    canonicalJson(call.args),
  ]);
}

/**
 * About what a kept result takes in memory: two bytes per character of what it holds;
 * `undefined` for one JSON cannot measure (a host tool's structured content with a cycle or a
 * BigInt), which is not kept: the cache must not fail a call that runs without it.
 */
function bytesOf(result: ToolCallResult): number | undefined {
  try {
    const structured = result.structuredContent === undefined
      ? 0
      : JSON.stringify(result.structuredContent).length;
    return 2 * (result.text.length + JSON.stringify(result.content).length + structured);
  } catch {
    return undefined;
  }
}
