import type { PolicyGate } from "./policy_gate.ts";

/**
 * The policy gate of a tool set, keyed by the init object the router builds it from: a side
 * channel, so the public `ToolSetInit` never names the internal gate.
 */
export const policyGates: WeakMap<object, PolicyGate> = new WeakMap();
