import type { RoutedTool } from "../tool_source.ts";
import { parseRule, type PolicyRule, type PolicyScope, ruleNamesTool } from "./policy_rule.ts";
import type { Policy, PolicyAction } from "../policy_types.ts";
import { SpecifierMatch } from "./specifier_match.ts";
import { type CompiledLimit, compileLimits } from "./policy_limits.ts";

/** What the policies decided for one call, and which rule decided it. */
export interface PolicyDecision {
  action: PolicyAction;
  /** The rule as written, or `"default"` when no rule matched. */
  rule: string;
  /** The policy the rule belongs to. */
  scope: PolicyScope;
}

/** A policy with its rules parsed. */
export interface CompiledPolicy {
  readonly scope: PolicyScope;
  readonly deny: readonly PolicyRule[];
  readonly ask: readonly PolicyRule[];
  readonly allow: readonly PolicyRule[];
  readonly default: PolicyAction;
  /** Rules whose asks are never remembered by a grant. */
  readonly neverSticky: readonly PolicyRule[];
  readonly limits: readonly CompiledLimit[];
}

const ACTIONS: readonly PolicyAction[] = ["allow", "ask", "deny"];
const SEVERITY: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };
const compiled = new WeakMap<object, CompiledPolicy>();

/**
 * Parses a policy; throws a `TypeError` naming the first malformed rule or key.
 *
 * @param policy The policy as the host wrote it.
 * @param scope Whose policy it is.
 * @returns The compiled policy (cached per policy object).
 */
export function compilePolicy(policy: unknown, scope: PolicyScope): CompiledPolicy {
  if (policy === null || typeof policy !== "object" || Array.isArray(policy)) {
    throw new TypeError(
      `Invalid ${scope} policy: pass an object such as { deny: ["bash(rm *)"], default: "allow" }`,
    );
  }
  const cached = compiled.get(policy);
  if (cached?.scope === scope) return cached;
  for (const key of Object.keys(policy)) {
    if (!["allow", "ask", "deny", "default", "neverSticky", "limits"].includes(key)) {
      throw new TypeError(
        `Invalid ${scope} policy: unknown key "${key}"; the keys are allow, ask, deny, default, neverSticky and limits`,
      );
    }
  }
  const value = policy as Policy;
  if (value.default !== undefined && !ACTIONS.includes(value.default)) {
    throw new TypeError(
      `Invalid ${scope} policy: "default" must be "allow", "ask" or "deny", received ${
        JSON.stringify(value.default)
      }`,
    );
  }
  const list = (action: PolicyAction | "neverSticky"): PolicyRule[] => {
    const rules = value[action as "allow"];
    if (rules === undefined) return [];
    if (!Array.isArray(rules)) {
      throw new TypeError(
        `Invalid ${scope} policy: "${action}" must be an array of rules, received ${
          JSON.stringify(rules)
        }`,
      );
    }
    return rules.map((rule) => parseRule(rule, action === "neverSticky" ? "ask" : action));
  };
  const result = Object.freeze({
    scope,
    deny: list("deny"),
    ask: list("ask"),
    allow: list("allow"),
    default: value.default ?? "allow",
    neverSticky: list("neverSticky"),
    limits: compileLimits(value.limits, scope),
  });
  compiled.set(policy, result);
  return result;
}

interface ToolRules {
  policy: CompiledPolicy;
  deny: PolicyRule[];
  ask: PolicyRule[];
  allow: PolicyRule[];
  fixed?: PolicyDecision;
  fallback?: PolicyDecision;
}

/**
 * The router's and the request's policies over one request's tools: which tools are hidden,
 * and what each call is. Per tool, only the rules whose names match it are kept, so a call
 * through a long policy looks at the few rules about its tool (and none when they have no
 * specifier: the decision is fixed).
 */
export class PolicyEngine {
  #policies: readonly CompiledPolicy[];
  #workspace?: string;
  #byTool = new Map<RoutedTool, { rules: ToolRules[]; fixed?: PolicyDecision }>();

  /**
   * @param policies The policies that apply together (the stricter decision wins).
   * @param workspace The workspace that path specifiers resolve against.
   */
  constructor(policies: readonly CompiledPolicy[], workspace?: string) {
    this.#policies = policies;
    this.#workspace = workspace;
  }

  /**
   * The decision that hides a tool: a deny rule without specifier names it, or the default
   * denies and no allow or ask rule names it.
   *
   * @returns The deny decision, or `undefined` when the tool is exposed.
   */
  hidden(tool: RoutedTool): PolicyDecision | undefined {
    for (const rules of this.#rules(tool).rules) {
      const scope = rules.policy.scope;
      const plain = rules.deny.find((rule) => rule.specifier === undefined);
      if (plain) return { action: "deny", rule: plain.text, scope };
      if (rules.policy.default === "deny" && rules.ask.length === 0 && rules.allow.length === 0) {
        return { action: "deny", rule: "default", scope };
      }
    }
    return undefined;
  }

  /**
   * Decides a call. `args` is read only when a rule about the tool has a specifier.
   *
   * @param args The call's arguments, parsed (a thunk, so fixed decisions never parse).
   * @returns The stricter of the policies' decisions.
   */
  decide(tool: RoutedTool, args: () => Record<string, unknown>): PolicyDecision {
    const entry = this.#rules(tool);
    if (entry.fixed) return entry.fixed;
    const call = new SpecifierMatch(tool, args(), this.#workspace);
    return strictest(entry.rules.map((rules) => this.#decideOne(rules, call)));
  }

  /**
   * Whether a call must ask every time: the tool says so (`neverSticky`), or a policy's
   * `neverSticky` rule matches it the way a deny rule would.
   *
   * @returns `true` when no grant may cover the call.
   */
  neverSticky(tool: RoutedTool, args: Record<string, unknown>): boolean {
    if (tool.neverSticky === true) return true;
    const rules = this.#policies.flatMap((policy) =>
      policy.neverSticky.filter((rule) => ruleNamesTool(rule, tool))
    );
    if (rules.length === 0) return false;
    const call = new SpecifierMatch(tool, args, this.#workspace);
    return rules.some((rule) => call.matches(rule));
  }

  /**
   * Whether the ask rule that decided a call covers all of its arguments the way an allow rule
   * would: what a grant for that rule may run (`write_file(src/**)` never covers `.env`, nor a
   * patch that also touches `.env`).
   *
   * @param decision The ask decision (its rule and scope).
   * @returns `true` when a grant for that rule may run this call.
   */
  covers(tool: RoutedTool, args: Record<string, unknown>, decision: PolicyDecision): boolean {
    if (decision.action !== "ask") return false;
    if (decision.rule === "default") return true;
    const own = this.#rules(tool).rules.find((rules) => rules.policy.scope === decision.scope);
    const rule = own?.ask.find((rule) => rule.text === decision.rule);
    if (rule === undefined) return false;
    return new SpecifierMatch(tool, args, this.#workspace).allowingRule([rule]) !== undefined;
  }

  #decideOne(rules: ToolRules, call: SpecifierMatch): PolicyDecision {
    if (rules.fixed) return rules.fixed;
    const scope = rules.policy.scope;
    // The strictest list first: a deny rule that matches wins over an ask, an ask over an allow.
    for (const action of ["deny", "ask"] as const) {
      const rule = rules[action].find((rule) => call.matches(rule));
      if (rule !== undefined) return { action, rule: rule.text, scope };
    }
    const allowed = rules.allow.length > 0 ? call.allowingRule(rules.allow) : undefined;
    if (allowed !== undefined) return { action: "allow", rule: allowed.text, scope };
    return rules.fallback ??= { action: rules.policy.default, rule: "default", scope };
  }

  #rules(tool: RoutedTool): { rules: ToolRules[]; fixed?: PolicyDecision } {
    let entry = this.#byTool.get(tool);
    if (entry !== undefined) return entry;
    const rules = this.#policies.map((policy) => {
      const pick = (list: readonly PolicyRule[]) =>
        list.filter((rule) => ruleNamesTool(rule, tool));
      const own: ToolRules = {
        policy,
        deny: pick(policy.deny),
        ask: pick(policy.ask),
        allow: pick(policy.allow),
      };
      if ([...own.deny, ...own.ask, ...own.allow].every((rule) => rule.specifier === undefined)) {
        own.fixed = this.#decideOne(own, new SpecifierMatch(tool, {}));
      }
      return own;
    });
    entry = { rules };
    if (rules.every((own) => own.fixed !== undefined)) {
      entry.fixed = strictest(rules.map((own) => own.fixed!));
    }
    this.#byTool.set(tool, entry);
    return entry;
  }
}

/** The first of the strictest decisions; with none, the default allow. */
function strictest(decisions: readonly PolicyDecision[]): PolicyDecision {
  let worst: PolicyDecision = decisions[0] ?? { action: "allow", rule: "default", scope: "router" };
  for (const decision of decisions) {
    if (SEVERITY[decision.action] > SEVERITY[worst.action]) worst = decision;
  }
  return worst;
}
