import type { PolicyLimit } from "../policy_types.ts";
import { parseRule, type PolicyRule, type PolicyScope } from "./policy_rule.ts";

/** A limit of a policy, checked and parsed. */
export interface CompiledLimit {
  readonly scope: PolicyScope;
  /** The `match` rule, parsed. */
  readonly rule: PolicyRule;
  /** Most calls per window (or per run). */
  readonly max: number;
  /** The window; absent for a per-run budget. */
  readonly windowMs?: number;
  /** Whose calls share one count. */
  readonly per: "user" | "router";
}

const LIMIT_KEYS = ["match", "max", "windowMs", "per"];

// The longest window a limit may have: ten years.
const MAX_WINDOW_MS = 10 * 366 * 24 * 60 * 60_000;

/**
 * Checks a policy's `limits`; throws a `TypeError` naming the first malformed one.
 *
 * @param limits The `limits` array as the host wrote it.
 * @param scope Whose policy it is.
 */
export function compileLimits(limits: unknown, scope: PolicyScope): readonly CompiledLimit[] {
  if (limits === undefined) return [];
  const invalid = (what: string) =>
    new TypeError(
      `Invalid ${scope} policy: ${what}; a limit is { match: "send_email", max: 10, windowMs: 60000, per: "user" }`,
    );
  if (!Array.isArray(limits)) throw invalid(`"limits" must be an array`);
  return limits.map((limit: PolicyLimit, index): CompiledLimit => {
    const at = `limit ${index}`;
    if (limit === null || typeof limit !== "object" || Array.isArray(limit)) {
      throw invalid(`${at} is not an object`);
    }
    for (const key of Object.keys(limit)) {
      if (!LIMIT_KEYS.includes(key)) throw invalid(`${at} has an unknown key "${key}"`);
    }
    let rule: PolicyRule;
    try {
      rule = parseRule(limit.match, "deny");
    } catch (error) {
      throw invalid(`${at} has a malformed "match" (${(error as Error).message})`);
    }
    if (!Number.isSafeInteger(limit.max) || limit.max < 1) {
      throw invalid(`${at} needs "max", a whole number of calls of at least 1`);
    }
    const windowMs = limit.windowMs;
    if (windowMs !== undefined && !(Number.isSafeInteger(windowMs) && windowMs >= 1)) {
      throw invalid(`${at} has "windowMs" ${JSON.stringify(windowMs)}: pass whole milliseconds`);
    }
    // A count is kept for two windows: stores bound how long a key may live (Deno KV's expiry
    // fails past about 8e15 ms, and every call would fail closed).
    if (windowMs !== undefined && windowMs > MAX_WINDOW_MS) {
      throw invalid(
        `${at} has "windowMs" ${windowMs}, over ten years (${MAX_WINDOW_MS}): pass a shorter window`,
      );
    }
    const per = limit.per ?? "user";
    if (per !== "user" && per !== "router") {
      throw invalid(`${at} has "per" ${JSON.stringify(per)}: pass "user" or "router"`);
    }
    return Object.freeze({ scope, rule, max: limit.max, windowMs, per });
  });
}
