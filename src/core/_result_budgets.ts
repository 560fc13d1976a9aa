import type { ResultBudgets } from "./result_budget.ts";

/**
 * The router's result budgets of a tool set, keyed by the init object the router builds it from:
 * a side channel, so the public `ToolSetInit` never names the internal class.
 */
export const resultBudgetsOf: WeakMap<object, ResultBudgets> = new WeakMap();
