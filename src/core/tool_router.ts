import type { FunctionTool } from "./define_tool.ts";
import type { McpService } from "./define_mcp_service.ts";
import type { ArgumentLimits } from "./parse_arguments.ts";
import { resolveSelection, type ToolSelection } from "./tool_selection.ts";
import type { CallOptions, CallSettings, ToolCallEvent } from "./tool_call_types.ts";
import { ToolSet } from "./tool_set.ts";
import type { BuiltinContext, BuiltinSource, GatewaySource } from "./tool_source.ts";
import { ToolRegistry } from "./tool_registry.ts";
import type { CallOptions as PolicyCallOptions, ToolCallResult } from "./tool_call_types.ts";
import type { KeyValueStore } from "./store/key_value_store.ts";
import type { ApprovalAnswer, ApprovalHandler, PendingApproval, Policy } from "./policy_types.ts";
import { type CompiledPolicy, compilePolicy } from "./policy/policy_engine.ts";
import type { ApprovalSettings } from "./policy/policy_gate.ts";
import { approvalSettings, exposeWithPolicy, resumeApproval } from "./router_policy.ts";
import type { AuditSink } from "./audit_sink.ts";

/** What `new ToolRouter` takes. */
export interface ToolRouterOptions {
  /** Function tools made by `defineTool`. */
  functions?: readonly FunctionTool[];
  /** Local MCP services made by `defineMcpService`. */
  mcpServices?: readonly McpService[];
  /** The remote MCP gateway (`McpGateway`). */
  gateway?: GatewaySource;
  /** The built-in tools (`builtinTools(context)` from the `./deno` entry). */
  builtins?: BuiltinSource;
  /** Receives one event per call; it must not throw (a throw is ignored). */
  onEvent?: (event: ToolCallEvent) => void;
  /**
   * Receives one audit record per decision: allow, deny, ask, approve, reject, unknown tool,
   * invalid arguments (user, tool, source, server, decision and rule, argument digest, duration,
   * outcome, trace id); never awaited, but a sink with `waitForRoom` holds calls back while full.
   * `FileAuditSink` in `./deno` writes JSON lines.
   */
  audit?: AuditSink;
  /** Whether audit records carry the arguments themselves, not only their digest. Default: `false`. */
  auditArguments?: boolean;
  /** Deadline of calls that give no `timeoutMs`. Default: none for in-process tools. */
  timeoutMs?: number;
  /** Most characters of a result; longer results keep head and tail. Default: no limit. */
  maxResultChars?: number;
  /**
   * Most decoded bytes of the media (images, audio, resource blobs) of one result; media past it is
   * replaced by a text block saying what was left out. Default: 16 MiB.
   */
  maxMediaBytes?: number;
  /** Limits on the argument text a model may send. */
  argumentLimits?: ArgumentLimits;
  /** Allow, ask and deny rules over every request's tools; see {@linkcode Policy}. */
  policy?: Policy;
  /** Decides asks while the call waits; without it a call returns `approval_required`. */
  approve?: ApprovalHandler;
  /** The secret that signs approvals (at least 16 bytes); random per router by default. */
  approvalSecret?: string | Uint8Array;
  /** How long a pending approval stays valid, in milliseconds. Default: 15 minutes. */
  approvalTtlMs?: number;
  /** Where used approval ids are kept, so each approval runs once. Default: in memory. */
  store?: KeyValueStore;
}

/** Options of a host-side `ToolRouter#invoke`. */
export interface RouterInvokeOptions extends CallOptions {
  /** The user whose per-user servers are considered. */
  userId?: string;
  /** The built-in context for this call. */
  context?: BuiltinContext;
}

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
  #approvalOptions: ToolRouterOptions;
  #approvals?: ApprovalSettings;

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
    this.#settings = {
      maxMediaBytes: options.maxMediaBytes ?? 16 * 1024 * 1024,
      timeoutMs: options.timeoutMs,
      maxResultChars: options.maxResultChars,
      argumentLimits: options.argumentLimits,
      onEvent: options.onEvent,
      audit: options.audit,
      auditArguments: options.auditArguments,
    };
    if (options.policy !== undefined) this.#policy = compilePolicy(options.policy, "router");
    checkPositive(options.approvalTtlMs, "approvalTtlMs");
    this.#approvalOptions = options;
    if (options.approvalSecret !== undefined || options.approve !== undefined) {
      this.#approvals = approvalSettings(options);
    }
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
    const resolved = await resolveSelection(
      selection,
      this.#registry,
      this.#builtins,
      this.#gateway,
    );
    if (this.#policy === undefined && selection.policy === undefined) {
      return new ToolSet({
        ...resolved,
        userId: selection.userId,
        settings: this.#settings,
        defer: selection.defer,
      });
    }
    return exposeWithPolicy(resolved, selection, {
      router: this.#policy,
      approvals: this.#approvals ??= approvalSettings(this.#approvalOptions),
      settings: this.#settings,
      workspace: selection.context?.workspace ?? this.#builtins?.context?.workspace,
    });
  }

  /**
   * Settles an approval in a later process (or another instance): checks it, rebuilds the tool
   * set of its request from the plain data it carries, and runs the call when approved, or
   * returns the rejection for the model. The router must share the secret (`approvalSecret`)
   * and, across processes, the `store` of the router that issued it. A changed, expired or
   * already used approval runs nothing and returns `permission_denied`.
   *
   * @param approval The `approval` of an `approval_required` result.
   * @param answer The person's decision, and the call's signal, deadline and progress listener.
   * @returns The call's result, or the text for the model.
   */
  resume(
    approval: PendingApproval,
    answer: ApprovalAnswer & PolicyCallOptions,
  ): Promise<ToolCallResult> {
    if (answer === null || typeof answer !== "object" || typeof answer.approved !== "boolean") {
      throw new TypeError(
        "Cannot resume the approval: pass { approved: true } or { approved: false, reason }",
      );
    }
    return resumeApproval(approval, answer, {
      approvals: this.#approvals ??= approvalSettings(this.#approvalOptions),
      settings: this.#settings,
      expose: (selection) => this.expose(selection),
    });
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

function checkPositive(value: number | undefined, name: string): void {
  if (value !== undefined && !(typeof value === "number" && value > 0 && Number.isFinite(value))) {
    throw new RangeError(
      `Cannot create router: "${name}" must be a positive number, received ${String(value)}`,
    );
  }
}
