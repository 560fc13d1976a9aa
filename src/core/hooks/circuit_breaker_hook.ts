import { errorResult } from "../tool_call.ts";
import { checkPositive } from "../check_positive.ts";
import type { HookCall, ToolHook } from "./tool_hook.ts";
import { isTransientFailure } from "./transient_failure.ts";

/** Options of {@linkcode circuitBreakerHook}. */
export interface CircuitBreakerOptions {
  /** Transient failures in a row that open a server's circuit. Default: 5. */
  failures?: number;
  /** How long an open circuit fails calls at once before one probe may pass, in ms. Default: 30 000. */
  openMs?: number;
  /** The clock (for tests). Default: `Date.now`. */
  now?: () => number;
}

/**
 * Most circuits kept (a server and user with failures since its last success); past it the one
 * whose last failure is oldest is forgotten. A circuit ends only with a success, so without a
 * bound every user who met a failure and never came back would stay.
 */
const MAX_CIRCUITS = 10_000;

interface Circuit {
  failures: number;
  openedAt?: number;
  /** When the probe of a half-open circuit started (a probe that never finished expires). */
  probeAt?: number;
}

/**
 * A hook that stops calling an MCP server that keeps failing: after `failures` transient
 * failures in a row (timeouts, HTTP 5xx, dropped connections) the server's circuit opens, and
 * its calls fail at once with `upstream_unavailable` saying when to try again; after `openMs` one
 * call passes as a probe (half-open): its success closes the circuit, its failure opens it again.
 * One circuit per server and user: one user's failing calls (even deliberate ones, such as a
 * deadline of 1 ms) never fail another user's calls; tools that are not an MCP server's pass
 * untouched. At most 10 000 circuits with failures are kept; past that the one whose last failure
 * is oldest is forgotten (its next call is let through).
 *
 * @example Open after two failures
 * ```ts
 * import { defineMcpService, ToolError, ToolRouter } from "@toolroute/toolroute";
 * import { circuitBreakerHook } from "@toolroute/toolroute/hooks";
 * import { z } from "zod";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * let reached = 0;
 * const weather = defineMcpService({
 *   name: "weather",
 *   tools: {
 *     now: {
 *       description: "The weather now",
 *       input: z.object({}),
 *       run: () => {
 *         reached++;
 *         throw new ToolError("upstream_unavailable", "the station is down");
 *       },
 *     },
 *   },
 * });
 * const router = new ToolRouter({
 *   mcpServices: [weather],
 *   hooks: [circuitBreakerHook({ failures: 2 })],
 * });
 * const tools = await router.expose({ mcpServices: ["weather"] });
 * await tools.call("weather_now", {});
 * await tools.call("weather_now", {});
 * const fast = await tools.call("weather_now", {});
 * assertEquals([fast.code, reached], ["upstream_unavailable", 2]);
 * assertMatch(fast.text, /circuit .* is open/);
 * ```
 *
 * @param options The threshold, how long the circuit stays open, and the clock.
 * @returns The hook.
 */
export function circuitBreakerHook(options: CircuitBreakerOptions = {}): ToolHook {
  const where = "Cannot make the circuit breaker";
  checkPositive(options.failures, "failures", { where, min: 1 });
  checkPositive(options.openMs, "openMs", { where });
  const threshold = options.failures ?? 5;
  const openMs = options.openMs ?? 30_000;
  const now = options.now ?? Date.now;
  const circuits = new Map<string, Circuit>();
  return Object.freeze<ToolHook>({
    name: "circuit-breaker",
    before(call: HookCall) {
      const key = circuitKey(call);
      const circuit = key === undefined ? undefined : circuits.get(key);
      if (circuit?.openedAt === undefined) return undefined;
      const at = now();
      const left = circuit.openedAt + openMs - at;
      const probing = circuit.probeAt !== undefined && at - circuit.probeAt < openMs;
      if (left <= 0 && !probing) {
        circuit.probeAt = at; // half-open: this call is the probe
        return undefined;
      }
      const wait = Math.max(left, 1);
      const text =
        `The circuit of server "${call.server}" is open after ${circuit.failures} failures in a row; "${call.tool}" was not called. Try again in ${
          Math.ceil(wait / 1000)
        } s`;
      return {
        result: errorResult({ name: call.tool, source: call.source }, {
          code: "upstream_unavailable",
          text,
        }),
      };
    },
    after(call, result) {
      const key = circuitKey(call);
      if (key === undefined) return undefined;
      const circuit = circuits.get(key) ?? { failures: 0 };
      if (!isTransientFailure(result)) {
        circuits.delete(key);
        return undefined;
      }
      circuit.failures++;
      if (circuit.probeAt !== undefined || circuit.failures >= threshold) circuit.openedAt = now();
      circuit.probeAt = undefined;
      // Kept in order of the last failure: the first entry is the one to forget.
      circuits.delete(key);
      if (circuits.size >= MAX_CIRCUITS) circuits.delete(circuits.keys().next().value!);
      circuits.set(key, circuit);
      return undefined;
    },
  });
}

/**
 * One circuit per server and user: a user's failures (a deadline of 1 ms, arguments that make the
 * server time out) never fail another user's calls, whether the server is theirs or shared.
 */
function circuitKey(call: HookCall): string | undefined {
  if (call.server === undefined) return undefined;
  return JSON.stringify([call.source, call.userId ?? null, call.server]);
}
