import { MemoryStore } from "./store/memory_store.ts";
import type { ToolRouterOptions } from "./tool_router_options.ts";
import { EncryptedStore } from "./store/encrypted_store.ts";
import type { CallOptions, CallSettings, ToolCallResult } from "./tool_call_types.ts";
import type { ResolvedSelection, ToolSelection } from "./tool_selection.ts";
import type { ToolSet } from "./tool_set.ts";
import type { MissingTool, RoutedTool, SelectionKey, SourceKind } from "./tool_source.ts";
import { ApprovalSigner } from "./policy/approval_signer.ts";
import { type CompiledPolicy, compilePolicy, PolicyEngine } from "./policy/policy_engine.ts";
import { PolicyGate } from "./policy/policy_gate.ts";
import type { ApprovalSettings } from "./policy/policy_gate_init.ts";
import { describeRule, refusedApproval } from "./policy/policy_results.ts";
import type { ApprovalAnswer, ApprovalSelection, PendingApproval } from "./policy_types.ts";
import { approvalIsGenuine } from "./policy/settle_approval.ts";
import type { ToolHook } from "./hooks/tool_hook.ts";
import { GrantStore } from "./policy/grant_store.ts";
import { CallLimiter } from "./policy/call_limiter.ts";

const FIFTEEN_MINUTES = 15 * 60_000;
const SELECTION_KEYS: Record<SourceKind, SelectionKey> = {
  builtin: "builtins",
  user_mcp: "mcpServers",
  global_mcp: "mcpServers",
  local_mcp: "mcpServices",
  function: "functions",
};

/** The router's approval settings from its options: signer, store, lifetime and handler. */
export function approvalSettings(options: ToolRouterOptions): ApprovalSettings {
  if (options.approve !== undefined && typeof options.approve !== "function") {
    throw new TypeError('Cannot create router: "approve" must be a function');
  }
  const signer = new ApprovalSigner(options.approvalSecret);
  const store = options.storeKey === undefined
    ? options.store ?? new MemoryStore()
    : new EncryptedStore(options.store ?? new MemoryStore(), options.storeKey);
  return {
    signer,
    store,
    ttlMs: options.approvalTtlMs ?? FIFTEEN_MINUTES,
    approve: options.approve,
    grants: new GrantStore(store, signer, options.grantTtlMs),
  };
}

/**
 * The tools of a request under the router's and the request's policies, and the gate of their
 * calls: tools a deny rule without specifier names are left out and reported in `missing`.
 *
 * @param resolved The selection's tools after source priority.
 * @param selection The selection (its `policy` is compiled here; a malformed one throws).
 * @param context The router's policy, approvals, settings and the workspace.
 */
export function applyPolicies(
  resolved: ResolvedSelection,
  selection: ToolSelection,
  context: {
    router?: CompiledPolicy;
    approvals: ApprovalSettings;
    settings: CallSettings;
    workspace?: string;
  },
): { tools: RoutedTool[]; missing: MissingTool[]; policy: PolicyGate } {
  const policies = [context.router];
  if (selection.policy !== undefined) policies.push(compilePolicy(selection.policy, "request"));
  const engine = new PolicyEngine(
    policies.filter((policy): policy is CompiledPolicy => policy !== undefined),
    context.workspace,
  );
  const tools: RoutedTool[] = [];
  const missing: MissingTool[] = [...resolved.missing];
  for (const tool of resolved.tools) {
    const hidden = engine.hidden(tool);
    if (hidden === undefined) tools.push(tool);
    else {
      missing.push({
        selection: SELECTION_KEYS[tool.source],
        name: tool.name,
        reason: `denied by ${describeRule(hidden)}`,
      });
    }
  }
  const limits = policies.flatMap((policy) => policy?.limits ?? []);
  const policy = new PolicyGate({
    engine,
    approvals: context.approvals,
    selection: snapshot(selection),
    userId: selection.userId,
    settings: context.settings,
    limiter: limits.length === 0 ? undefined : new CallLimiter(limits, {
      store: context.approvals.store,
      workspace: context.workspace,
    }),
  });
  return { tools, missing, policy };
}

/**
 * Settles an approval in a router that may not have issued it: checks the signature before
 * anything else (a forged selection must not make the router connect anywhere), rebuilds the
 * request's tool set and settles the approval through it.
 *
 * @param answer The decision and the call's options.
 * @param context The router's approvals, call settings and its `expose`.
 */
export async function resumeApproval(
  approval: PendingApproval,
  answer: ApprovalAnswer & CallOptions & { hooks?: readonly ToolHook[] },
  context: {
    approvals: ApprovalSettings;
    settings: CallSettings;
    expose: (selection: ToolSelection) => Promise<ToolSet>;
  },
): Promise<ToolCallResult> {
  if (!(await approvalIsGenuine(context.approvals.signer, approval))) {
    return refusedApproval(approval, {
      text:
        "The approval was changed after it was issued, or another router issued it; nothing ran",
    }, {
      settings: context.settings,
      // What a forged approval names (anything at all) is recorded only when it is a user id.
      userId: typeof approval?.userId === "string" ? approval.userId : undefined,
    });
  }
  const { approved, hooks, ...options } = answer;
  const toolSet = await context.expose({
    ...approval.selection,
    ...(hooks === undefined ? {} : { hooks }),
    policy: approval.selection.policy ?? {},
    userId: approval.userId,
    signal: options.signal,
  });
  // The answer's fields and the call's options go on as they are: the set keeps those given.
  return approved
    ? await toolSet.approve(approval, options)
    : await toolSet.reject(approval, options.reason);
}

function snapshot(selection: ToolSelection): ApprovalSelection {
  const { functions, mcpServices, mcpServers, builtins, context, policy, defer } = selection;
  // A JSON copy: plain data, its absent fields left out, nothing shared with the host's objects.
  return JSON.parse(JSON.stringify({
    functions,
    mcpServices,
    mcpServers,
    builtins,
    context,
    policy,
    defer: defer === undefined || defer === false ? undefined : true,
  }));
}
