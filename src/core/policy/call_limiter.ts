import type { KeyValueStore } from "../store/key_value_store.ts";
import { parseArguments } from "../parse_arguments.ts";
import type { CallSettings } from "../tool_call_types.ts";
import { type ErrorCode, isToolError } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";
import { ruleNamesTool } from "./policy_rule.ts";
import { SpecifierMatch } from "./specifier_match.ts";
import type { CompiledLimit } from "./policy_limits.ts";
import { type RunTool, stoppedResult } from "./policy_results.ts";

/** How long a run's count is kept after its last counted call: a run longer than that starts over. */
const RUN_KEPT_MS = 24 * 60 * 60_000;

/** What a refused call is told. */
interface Refusal {
  limit: CompiledLimit;
  retryAfterMs?: number;
}

/** Who calls and in which run, for the counts' keys. */
interface CountContext {
  argumentLimits?: CallSettings["argumentLimits"];
  userId?: string;
  runId: string;
  /** The tool is the user's own server's: no one else's calls reach it. */
  own: boolean;
}

/**
 * The limits of one request's policies over its calls. Counts live in the router's store, so
 * routers sharing a store share the limits; a call over any limit runs nothing.
 */
export class CallLimiter {
  #limits: readonly CompiledLimit[];
  #store: KeyValueStore;
  #workspace?: string;
  #byTool = new Map<RoutedTool, readonly CompiledLimit[]>();
  /**
   * Counts seen over their limit, by key, until their window ends: a count only grows within its
   * window, so a runaway loop is refused here without asking the store again.
   */
  #full = new Map<string, { until: number }>();
  /**
   * Each limit's last count key and who and which window or run it was for: the calls of one
   * user in one window reuse one frozen key instead of building it again.
   */
  #keys = new Map<CompiledLimit, LastKey>();

  /**
   * @param limits The limits of the request's policies.
   * @param options The store that keeps the counts, and the workspace paths resolve against.
   */
  constructor(
    limits: readonly CompiledLimit[],
    options: { store: KeyValueStore; workspace?: string },
  ) {
    this.#limits = limits;
    this.#store = options.store;
    this.#workspace = options.workspace;
  }

  /**
   * Wraps a tool runner so that each call is counted against the limits about its tool first.
   * Calls of tools no limit names go straight through.
   *
   * @param context The user, the run and the router's settings.
   */
  wrap(
    run: RunTool,
    context: { userId?: string; runId: () => string; settings: CallSettings },
  ): RunTool {
    return (tool, args, options, decision) => {
      const limits = this.#of(tool);
      if (limits.length === 0) return run(tool, args, options, decision);
      const stop = (code: ErrorCode, text: string) =>
        stoppedResult(tool, { code, text }, {
          settings: context.settings,
          userId: context.userId,
          fields: decision ?? { decision: "allow", rule: "default" },
          args,
          signal: options.signal,
        });
      return this.#admit(tool, limits, args, {
        argumentLimits: context.settings.argumentLimits,
        userId: context.userId,
        runId: options.runId ?? context.runId(),
        own: tool.source === "user_mcp",
      }).then(
        async (refusal) => {
          if (refusal === undefined) return run(tool, args, options, decision);
          const result = await stop("rate_limited", refusalText(tool, refusal));
          if (refusal.retryAfterMs !== undefined) result.retryAfterMs = refusal.retryAfterMs;
          return result;
        },
        // A store that fails (a database down) fails the call closed: unchecked, it does not run.
        () =>
          stop(
            "tool_error",
            `The call to "${tool.name}" did not run: its limits could not be checked, because the store that keeps their counts failed. Try again later`,
          ),
      );
    };
  }

  /** The limits whose rule names this tool (cached per tool). */
  #of(tool: RoutedTool): readonly CompiledLimit[] {
    let limits = this.#byTool.get(tool);
    if (limits === undefined) {
      limits = this.#limits.filter((limit) => ruleNamesTool(limit.rule, tool));
      this.#byTool.set(tool, limits);
    }
    return limits;
  }

  async #admit(
    tool: RoutedTool,
    limits: readonly CompiledLimit[],
    args: unknown,
    context: CountContext,
  ): Promise<Refusal | undefined> {
    const applying = this.#applying(tool, limits, args, context);
    if (applying.length === 0) return undefined;
    const now = Date.now();
    const counts = applying.map((limit) => count(limit, context, { now, keys: this.#keys }));
    if (this.#full.size > 0) {
      for (const [index, { key }] of counts.entries()) {
        const id = JSON.stringify(key);
        const full = this.#full.get(id);
        if (full === undefined) continue;
        if (full.until > now) {
          return { limit: applying[index], retryAfterMs: counts[index].retryAfterMs };
        }
        this.#full.delete(id);
      }
    }
    // Limits alike but for `max` share one count (one key): a call counts once in it.
    const first = counts.map(({ key }, index) =>
      index === 0 ? 0 : counts.findIndex((other) => sameKey(other.key, key))
    );
    const stored = counts.length === 1
      ? [await this.#store.increment(counts[0].key, { expireIn: counts[0].expireIn })]
      : await Promise.all(
        counts.map(({ key, expireIn }, index) =>
          first[index] === index ? this.#store.increment(key, { expireIn }) : 0
        ),
      );
    const seen = first.map((index) => stored[index]);
    const over = seen.findIndex((value, index) => value > applying[index].max);
    if (over === -1) return undefined;
    // Nothing runs, so the counts that admitted the call are given back; a count over a limit
    // stays over it until its window ends either way.
    const full = new Set(first.filter((_, index) => seen[index] > applying[index].max));
    await Promise.all(
      counts.filter((_, index) => first[index] === index && !full.has(index))
        .map(({ key }) => this.#store.increment(key, { by: -1 })),
    );
    if (this.#full.size >= 10_000) this.#full.clear();
    const { key, expireIn, retryAfterMs } = counts[over];
    this.#full.set(JSON.stringify(key), { until: now + (retryAfterMs ?? expireIn) });
    return { limit: applying[over], retryAfterMs: counts[over].retryAfterMs };
  }

  /** The limits whose specifier (if any) matches the call; unreadable arguments count. */
  #applying(
    tool: RoutedTool,
    limits: readonly CompiledLimit[],
    args: unknown,
    context: CountContext,
  ): CompiledLimit[] {
    if (limits.every((limit) => limit.rule.specifier === undefined)) return [...limits];
    let parsed: Record<string, unknown>;
    try {
      parsed = parseArguments(args, context.argumentLimits);
    } catch (error) {
      // The runner reports the invalid arguments; nothing runs, so nothing is counted.
      if (isToolError(error)) return [];
      throw error;
    }
    const call = new SpecifierMatch(tool, parsed, this.#workspace);
    return limits.filter((limit) => call.matches(limit.rule));
  }
}

function sameKey(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((part, index) => part === b[index]));
}

/** A limit's last count key, with the user and the window or run it was made for. */
interface LastKey {
  shared: boolean;
  userId: string | undefined;
  slot: string | number;
  key: readonly string[];
}

/** The key, store expiry and retry time (the window's end) of one limit's count at `now`. */
function count(
  limit: CompiledLimit,
  context: CountContext,
  clock: { now: number; keys: Map<CompiledLimit, LastKey> },
): { key: readonly string[]; expireIn: number; retryAfterMs?: number } {
  const { now, keys } = clock;
  // Everyone's calls together are the calls of shared tools: a user's own server is reached by
  // that user's calls alone, which count as theirs (else they would use up everyone's limit of a
  // shared server of the same id or tool name without ever reaching it).
  const shared = limit.per === "router" && !context.own;
  const userId = shared ? undefined : context.userId;
  const window = limit.windowMs === undefined ? undefined : Math.floor(now / limit.windowMs);
  const slot = window ?? context.runId;
  let last = keys.get(limit);
  if (
    last === undefined || last.shared !== shared || last.userId !== userId || last.slot !== slot
  ) {
    const who = shared ? "router" : userId === undefined ? "anonymous" : `user:${userId}`;
    const key = Object.freeze([
      "limits",
      limit.scope,
      limit.rule.text,
      String(limit.windowMs ?? "run"),
      who,
      window === undefined ? `run:${context.runId}` : String(window),
    ]);
    keys.set(limit, last = { shared, userId, slot, key });
  }
  if (window === undefined) return { key: last.key, expireIn: RUN_KEPT_MS };
  const end = (window + 1) * limit.windowMs!;
  // The key names its window, so the store's expiry only clears it away; it outlives the window
  // by one more, because an increment decided before the end may reach the store after it, and a
  // count expired by then would start again from 0 and admit calls past a full window.
  return { key: last.key, expireIn: end - now + limit.windowMs!, retryAfterMs: end - now };
}

function refusalText(tool: RoutedTool, refusal: Refusal): string {
  const { limit, retryAfterMs } = refusal;
  const owner = limit.scope === "router" ? "the router's policy" : "this request's policy";
  const whose = limit.per === "router" && tool.source !== "user_mcp"
    ? "all users together"
    : "each user";
  return limit.windowMs === undefined
    ? `The call to "${tool.name}" was not run: limit ${
      JSON.stringify(limit.rule.text)
    } of ${owner} allows ${limit.max} call(s) per run (${whose}), and this run has used them. Do not call it again in this run; finish without it or ask the user`
    : `The call to "${tool.name}" was not run: limit ${
      JSON.stringify(limit.rule.text)
    } of ${owner} allows ${limit.max} call(s) per ${limit.windowMs} ms (${whose}). Retry after ${
      Math.ceil(retryAfterMs! / 1000)
    } s (retryAfterMs ${retryAfterMs}), or continue without it`;
}
