import type { PolicyGate } from "./policy/policy_gate.ts";
import type { ResultBudgets } from "./result_budget.ts";

/**
 * The router's policy gate and result budgets of a tool set, keyed by the init object the router
 * builds it from: a side channel, so the public `ToolSetInit` never names the internal classes.
 */
export const toolSetParts: WeakMap<object, { policy?: PolicyGate; results?: ResultBudgets }> =
  new WeakMap();
