import { ToolError } from "./tool_error.ts";
import type { CallOptions, CallSettings, ToolCallResult } from "./tool_call_types.ts";
import { callTool, type ToolCall, unknownTool } from "./tool_call.ts";
import type { MissingTool, RoutedTool, SourceKind } from "./tool_source.ts";
import type { PolicyGate } from "./policy/policy_gate.ts";
import { refusedApproval, type RunTool } from "./policy/policy_results.ts";
import type { ApprovalAnswer, PendingApproval } from "./policy_types.ts";
import type { ResultBudgets, ResultOwner } from "./result_budget.ts";
import { READ_RESULT_NAME, readResultTool } from "./read_result_tool.ts";
import type { ToolHook } from "./hooks/tool_hook.ts";
import { callHooked } from "./hooks/hooked_call.ts";
import { type DeferSetting, ToolListing } from "./tool_listing.ts";

/** A name that more than one selected source offers, and which source won. */
export interface ShadowedTool {
  /** The exposed name. */
  name: string;
  /**
   * The source whose tool is exposed; `"router"` when the name is reserved by the router
   * (`search_tools` in a deferred tool set).
   */
  winner: SourceKind | "router";
  /** The sources whose tools of that name are hidden, highest first. */
  hidden: SourceKind[];
  /**
   * For a name equal to the winner's only ignoring case (`Read_File` and `read_file`): the
   * qualified name the lower tool is exposed under instead of being hidden.
   */
  exposedAs?: string;
}

/** What `ToolSet` is built from; `ToolRouter#expose` makes it. */
export interface ToolSetInit {
  /** The exposed tools, one per name. */
  tools: readonly RoutedTool[];
  /** Names that lost to a higher source. */
  shadowed: ShadowedTool[];
  /** Names of the selection that could not be exposed. */
  missing: MissingTool[];
  /** The request's user. */
  userId?: string;
  /** The router's call settings. */
  settings: CallSettings;
  /** Deferred exposure (see {@linkcode ToolSelection}`.defer`); absent: every tool is listed. */
  defer?: DeferSetting;
  /** The host's session: result handles are shared by the sets of one user and session. */
  session?: string;
  /** Hooks around every call, in order (the router's, then the request's). */
  hooks?: readonly ToolHook[];
}

/** What the call path of one tool set is made of: its init, and the router's gate and budgets. */
export type ToolSetCallsInit = ToolSetInit & {
  /** The policy gate, when the router or the request has a policy. */
  policy?: PolicyGate;
  /** The result budgets, when the router has them (the set then has its own `read_result`). */
  results?: ResultBudgets;
};

/**
 * How a tool set's calls run: the policy gate (and settling its approvals), the hooks, the result
 * budgets with `read_result`, and the answer for a tool of a server that is not up now.
 */
export class ToolSetCalls {
  /** What the set lists: calls find their tools there, and `read_result` is appended to it. */
  readonly list: ToolListing;
  /** The set's `read_result`, listed once a result is cut (with `results`). */
  #readResult?: RoutedTool;
  #init: ToolSetCallsInit;
  /** Whose stored results this set reads: its user and its own id, or the host's session. */
  #owner: ResultOwner;

  /** @param init The parts (see {@linkcode ToolSetCallsInit}). */
  constructor(init: ToolSetCallsInit) {
    this.#init = init;
    // One `read_result` for the set, reading the results of the set's owner only.
    this.#readResult = init.results === undefined
      ? undefined
      : readResultTool((handle, range) => init.results!.read(handle, this.#owner, range));
    this.list = new ToolListing(init.tools, { defer: init.defer, readResult: this.#readResult });
    this.#owner = {
      userId: init.userId,
      scope: init.session === undefined ? `set:${crypto.randomUUID()}` : `session:${init.session}`,
    };
    // A set of a session whose earlier sets cut results can read them from the start.
    if (init.results?.holds(this.#owner) === true) this.#listReadResult();
  }

  /** Calls an exposed tool (see `ToolSet#call`). */
  call(name: string, args: unknown, options: CallOptions): Promise<ToolCallResult> {
    // The search reveals only tools the request may use, and read_result only results of calls
    // the policy let run, so no policy rule is asked about them.
    const { policy, results, userId, settings } = this.#init;
    const found = this.list.callable.get(name);
    const own = found !== undefined &&
      (found === this.list.search || (results !== undefined && name === READ_RESULT_NAME));
    if (found !== undefined && !own) {
      return policy === undefined
        ? this.#run(found, args, options)
        : policy.call(found, args, options, this.#run);
    }
    // The set's own tools answer from this set alone (its allowlist, its handles), which a hook
    // cannot see: a cache keyed by user and arguments would hand one set's answer to another.
    // An unknown name runs nothing either: no hook, no budget.
    return callTool({
      tool: found,
      name,
      args,
      options,
      userId,
      missing: () => this.#missing(name),
    }, settings);
  }

  /** Settles an approval this set's policy issued (see `ToolSet#approve` and `ToolSet#reject`). */
  settle(
    approvalOrId: PendingApproval | string,
    answer: ApprovalAnswer & CallOptions,
  ): Promise<ToolCallResult> {
    const { approved, shownDigest, scope, arguments: edited, reason, ...options } = answer;
    const { policy, settings, userId } = this.#init;
    if (policy === undefined) {
      return refusedApproval(approvalOrId, {
        text: "This tool set has no policy, so it has no approvals to settle; nothing ran",
      }, { settings, userId });
    }
    const decided = { approved, shownDigest, scope, arguments: edited, reason };
    return policy.settle(approvalOrId, decided, {
      // An approval is for a tool this request may use even when this set has not listed it
      // (a later process rebuilds a deferred set with nothing found yet).
      lookup: (name) => this.list.findable(name),
      options,
      run: this.#run,
    });
  }

  /** A name not exposed is unknown, unless it is a tool of a server down or still starting. */
  #missing(name: string): ToolError {
    const entry = this.#init.missing.find((missing) => missing.tools?.includes(name) === true);
    if (entry === undefined) return unknownTool(name, this.list.names);
    return new ToolError(
      "upstream_unavailable",
      `Tool ${JSON.stringify(name)} belongs to the MCP server "${entry.name}", which is not ` +
        `available now: ${entry.reason}. Try again later; the server's tools come back when it ` +
        `is reachable`,
    );
  }

  #listReadResult(): void {
    const tool = this.#readResult;
    if (tool !== undefined && !this.list.listed(READ_RESULT_NAME)) this.list.append(tool);
  }

  /**
   * Cuts a result over its budget; the first cut lists `read_result`, appended. A result within
   * its budget comes back as it is, not in a promise (one promise step less on every call).
   */
  #budget(result: ToolCallResult, tool: RoutedTool): ToolCallResult | Promise<ToolCallResult> {
    const { results } = this.#init;
    if (results === undefined) return result;
    const budgeted = results.apply(result, tool, this.#owner);
    if (budgeted === result) return result;
    return Promise.resolve(budgeted).then((cut) => {
      if (cut.resultHandle !== undefined) this.#listReadResult();
      return cut;
    });
  }

  #run: RunTool = (tool, args, options, decision) =>
    this.#exec({
      tool,
      name: tool.name,
      args,
      options,
      userId: this.#init.userId,
      decision,
    }).then((result) => this.#budget(result, tool));

  /**
   * Runs a call the policy let through: through the hooks when the set has any. Budgets cut the
   * result after the hooks, so an `after` hook (a secret scanner) sees the whole result.
   */
  #exec(call: ToolCall & { tool: RoutedTool }): Promise<ToolCallResult> {
    const { hooks, settings, policy } = this.#init;
    if (hooks === undefined || hooks.length === 0) return callTool(call, settings);
    return callHooked(call, settings, { hooks, engine: policy?.init.engine });
  }
}
