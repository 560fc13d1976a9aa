import type { FunctionTool } from "./define_tool.ts";
import type { McpService } from "./define_mcp_service.ts";
import { resolveSelection, type ToolSelection } from "./tool_selection.ts";
import type { CallSettings } from "./tool_call_types.ts";
import { ToolSet } from "./tool_set.ts";
import type { BuiltinSource, GatewaySource } from "./tool_source.ts";
import { ToolRegistry } from "./tool_registry.ts";
import type { CallOptions as PolicyCallOptions, ToolCallResult } from "./tool_call_types.ts";
import type { ApprovalAnswer, PendingApproval } from "./policy_types.ts";
import { type CompiledPolicy, compilePolicy } from "./policy/policy_engine.ts";
import type { ApprovalSettings } from "./policy/policy_gate_init.ts";
import { applyPolicies, approvalSettings, resumeApproval } from "./router_policy.ts";
import { ResultBudgets } from "./result_budget.ts";
import { checkPositive } from "./check_positive.ts";
import { KeyValueResultStore } from "./key_value_result_store.ts";
import { MemoryStore } from "./store/memory_store.ts";
import { READ_RESULT_NAME } from "./read_result_tool.ts";
import { toolSetParts } from "./_tool_set_parts.ts";
import { keepToolSetSigner } from "./tool_set_signer.ts";
import type { Grant } from "./policy_types.ts";
import { checkHooks, type ToolHook } from "./hooks/tool_hook.ts";
import type { RouterInvokeOptions, ToolRouterOptions } from "./tool_router_options.ts";

/**
 * Registers tools from five sources and hands each request exactly the tools it may use.
 *
 * Priority, highest first: built-in, per-user MCP, local MCP, function, global MCP. When two
 * selected sources offer the same name the higher wins and `ToolSet#shadowed` reports it.
 *
 * @example Expose one function tool and call it
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const now = defineTool({
 *   name: "now",
 *   description: "The year",
 *   input: z.object({}),
 *   run: () => 2026,
 * });
 * const router = new ToolRouter({ functions: [now] });
 * const tools = await router.expose({ functions: ["now"] });
 * assertEquals(tools.tools[0].function.name, "now");
 * assertEquals(await tools.invoke("now", "{}"), "2026");
 * ```
 */
export class ToolRouter implements AsyncDisposable {
  #registry = new ToolRegistry();
  #gateway?: GatewaySource;
  #builtins?: BuiltinSource;
  #settings: CallSettings;
  #policy?: CompiledPolicy;
  #approvals: ApprovalSettings;
  #results?: ResultBudgets;
  #hooks: readonly ToolHook[];

  /**
   * Creates a router. Throws a `TypeError` when two tools of one source share a name.
   *
   * @param options The sources and call settings.
   */
  constructor(options: ToolRouterOptions = {}) {
    for (const tool of options.functions ?? []) this.#registry.addFunction(tool);
    for (const service of options.mcpServices ?? []) this.#registry.addService(service);
    this.#gateway = options.gateway;
    this.#builtins = options.builtins;
    checkPositive(options.timeoutMs, "timeoutMs");
    checkPositive(options.maxResultChars, "maxResultChars");
    checkPositive(options.maxMediaBytes, "maxMediaBytes");
    if (options.maxResultChars !== undefined && options.resultBudget !== undefined) {
      throw new TypeError(
        'Cannot create router: give "resultBudget" or "maxResultChars", not both',
      );
    }
    const budget = options.resultBudget ??
      (options.maxResultChars === undefined
        ? undefined
        : { tokens: Math.ceil(options.maxResultChars / 4) });
    // A gateway passes remote results through whole; its budget is cut here, with a handle.
    const remoteChars = options.gateway?.maxResultChars;
    if (budget !== undefined || remoteChars !== undefined) {
      this.#results = new ResultBudgets(budget ?? {}, {
        router: new KeyValueResultStore(options.store ?? new MemoryStore()),
        builtins: options.builtins?.resultStore,
        remoteTokens: remoteChars === undefined ? undefined : Math.ceil(remoteChars / 4),
      });
    }
    this.#settings = {
      maxMediaBytes: options.maxMediaBytes ?? 16 * 1024 * 1024,
      timeoutMs: options.timeoutMs,
      argumentLimits: options.argumentLimits,
      onEvent: options.onEvent,
      audit: options.audit,
      auditArguments: options.auditArguments,
    };
    if (options.policy !== undefined) this.#policy = compilePolicy(options.policy, "router");
    checkPositive(options.approvalTtlMs, "approvalTtlMs");
    checkPositive(options.grantTtlMs, "grantTtlMs");
    this.#hooks = checkHooks(options.hooks, "router");
    this.#approvals = approvalSettings(options);
  }

  /**
   * Registers a function tool. Throws a `TypeError` when the name is taken.
   *
   * @param tool The tool made by `defineTool`.
   */
  addFunction(tool: FunctionTool): void {
    this.#registry.addFunction(tool);
  }

  /**
   * Registers a local MCP service. Throws a `TypeError` when its name or a tool name is taken.
   *
   * @param service The service made by `defineMcpService`, or an SDK server mounted with
   *   `mountMcpServer` (the `./mcp` entry), which the router closes with itself.
   */
  addMcpService(service: McpService): void {
    // A mounted SDK server (`mountMcpServer` of the `./mcp` entry) is closed with the router.
    const close = (service as { close?: () => Promise<void> }).close;
    const closeService = typeof close === "function" ? () => close.call(service) : undefined;
    try {
      this.#registry.addService(service, closeService);
    } catch (error) {
      // Refused (a name taken): a mounted server is not left connected.
      void closeService?.().catch(() => {});
      throw error;
    }
  }

  /**
   * Exposes exactly the named tools for one request.
   *
   * Unknown names are reported in `missing`; they never throw. With `defer`, the set lists the
   * kept tools and `search_tools`, which finds and lists the others (docs/context_economy.md).
   *
   * @example Defer the tools and let the model search them
   * ```ts
   * import { defineMcpService, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals } from "@std/assert";
   *
   * const linear = defineMcpService({
   *   name: "linear",
   *   tools: {
   *     create_issue: {
   *       description: "Create a new Linear issue",
   *       input: z.object({ title: z.string() }),
   *       run: ({ title }) => `created ${title}`,
   *     },
   *   },
   * });
   * const tools = await new ToolRouter({ mcpServices: [linear] }).expose({
   *   mcpServices: ["linear"],
   *   defer: true,
   * });
   * assertEquals(tools.names, ["search_tools"]);
   * const found = await tools.invoke("search_tools", { query: "file a Linear ticket" });
   * assertEquals(JSON.parse(found).tools[0].name, "linear_create_issue");
   * assertEquals(tools.names, ["search_tools", "linear_create_issue"]);
   * assertEquals(await tools.invoke("linear_create_issue", { title: "Bug" }), "created Bug");
   * ```
   *
   * @param selection What this request may use.
   * @returns The tool set for the model.
   */
  async expose(selection: ToolSelection = {}): Promise<ToolSet> {
    const resolved = await resolveSelection(selection, {
      registry: this.#registry,
      builtins: this.#builtins,
      gateway: this.#gateway,
      reserve: this.#results === undefined ? undefined : READ_RESULT_NAME,
    });
    const requestHooks = checkHooks(selection.hooks, "request");
    const hooks = requestHooks.length === 0 ? this.#hooks : [...this.#hooks, ...requestHooks];
    const policed = this.#policy === undefined && selection.policy === undefined
      ? undefined
      : applyPolicies(resolved, selection, {
        router: this.#policy,
        approvals: this.#approvals,
        settings: this.#settings,
        workspace: selection.context?.workspace ?? this.#builtins?.context?.workspace,
      });
    const init = {
      tools: policed?.tools ?? resolved.tools,
      shadowed: resolved.shadowed,
      missing: policed?.missing ?? resolved.missing,
      userId: selection.userId,
      settings: this.#settings,
      defer: selection.defer,
      session: selection.session,
      hooks,
    };
    toolSetParts.set(init, { policy: policed?.policy, results: this.#results });
    const toolSet = new ToolSet(init);
    keepToolSetSigner(toolSet, this.#approvals.signer);
    return toolSet;
  }

  /**
   * Settles an approval in a later process (or another instance): checks it, rebuilds the tool
   * set of its request from the plain data it carries, and runs the call when approved, or
   * returns the rejection for the model. The router must share the secret (`approvalSecret`)
   * and, across processes, the `store` of the router that issued it. A changed, expired or
   * already used approval runs nothing and returns `permission_denied`.
   *
   * @param approval The `approval` of an `approval_required` result.
   * @param answer The person's decision (with its `scope` and edited `arguments`), the call's
   *   signal, deadline and progress listener, and the request's own `hooks` (the router's always
   *   run; a request's are functions, which the approval cannot carry).
   * @returns The call's result, or the text for the model.
   */
  resume(
    approval: PendingApproval,
    answer: ApprovalAnswer & PolicyCallOptions & { hooks?: readonly ToolHook[] },
  ): Promise<ToolCallResult> {
    if (answer === null || typeof answer !== "object" || typeof answer.approved !== "boolean") {
      throw new TypeError(
        "Cannot resume the approval: pass { approved: true } or { approved: false, reason }",
      );
    }
    return resumeApproval(approval, answer, {
      approvals: this.#approvals,
      settings: this.#settings,
      expose: (selection) => this.expose(selection),
    });
  }

  /**
   * The grants in force: lasting approvals made by answers with `scope: "session"` or
   * `"always"`, kept in the router's `store`.
   *
   * @example Grant a tool for the session, list the grant and revoke it
   * ```ts
   * import { defineTool, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals } from "@std/assert";
   *
   * let asked = 0;
   * const send = defineTool({
   *   name: "send",
   *   description: "Sends a note",
   *   input: z.object({ to: z.string() }),
   *   run: ({ to }) => `sent to ${to}`,
   * });
   * const router = new ToolRouter({
   *   functions: [send],
   *   policy: { ask: ["send"] },
   *   approve: () => (asked++, { approved: true, scope: "session" }),
   * });
   * const tools = await router.expose({ functions: ["send"], userId: "alice" });
   * await tools.invoke("send", { to: "bob" });
   * await tools.invoke("send", { to: "carol" });
   * assertEquals(asked, 1);
   * const [grant] = await router.grants({ userId: "alice" });
   * assertEquals([grant.tool, grant.rule, grant.scope], ["send", "send", "session"]);
   * assertEquals(await router.revokeGrant(grant.id), true);
   * await tools.invoke("send", { to: "dave" });
   * assertEquals(asked, 2);
   * ```
   *
   * @param filter `userId` for one user's grants; without it, every user's.
   * @returns The grants, each with its id, user, tool, rule, scope and end.
   */
  grants(filter?: { userId?: string }): Promise<Grant[]> {
    return this.#approvals.grants.list(filter);
  }

  /**
   * Ends a grant: the next call it covered asks again.
   *
   * @param id The grant's id.
   * @returns Whether a grant with that id was found.
   */
  revokeGrant(id: string): Promise<boolean> {
    if (typeof id !== "string") {
      throw new TypeError("Cannot revoke the grant: pass its id, a string");
    }
    return this.#approvals.grants.revoke(id);
  }

  /**
   * Calls any registered tool by name, in priority order: a host-side call, like AI4J's
   * `ToolUtil.invoke`. Not for model output: use `ToolSet#invoke`, which runs only exposed tools.
   *
   * @param name The tool name.
   * @param args The arguments: JSON text or an object.
   * @param options The user, built-in context, signal and deadline.
   * @returns The result text or a plain-sentence error.
   */
  async invoke(name: string, args?: unknown, options: RouterInvokeOptions = {}): Promise<string> {
    const { userId, context, ...callOptions } = options;
    const everything = await this.expose({
      builtins: this.#builtins?.names ? [...this.#builtins.names] : [],
      mcpServers: this.#gateway?.serverIds(userId) ?? [],
      mcpServices: this.#registry.serviceNames(),
      functions: this.#registry.functionNames(),
      userId,
      context,
    });
    return await everything.invoke(name, args, callOptions);
  }

  /** Closes the gateway, the built-ins' background processes and mounted servers. */
  async close(): Promise<void> {
    await Promise.allSettled([
      this.#gateway?.close?.(),
      this.#builtins?.close?.(),
      this.#registry.close(),
    ]);
  }

  /** Same as {@linkcode ToolRouter#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
