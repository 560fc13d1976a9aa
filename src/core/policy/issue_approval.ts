import type { RoutedTool } from "../tool_source.ts";
import { toolHash } from "./approval_signer.ts";
import type { PolicyGateInit } from "./policy_gate_init.ts";
import { showArguments, shownDigest, summarizeShown } from "./shown_arguments.ts";
import type { PendingApproval } from "../policy_types.ts";

/**
 * Issues a signed pending approval for one call: a random id, the exact arguments, what a person
 * is shown of them and its digest, the rule, the lifetime, the request's selection and the tool's
 * definition hash, all plain JSON.
 *
 * @param init The gate's approvals, selection and user.
 * @param ask The parsed arguments and the rule that asked.
 */
export async function issueApproval(
  init: Pick<PolicyGateInit, "approvals" | "selection" | "userId">,
  tool: RoutedTool,
  ask: { args: Record<string, unknown>; rule: string },
): Promise<PendingApproval> {
  const { args, rule } = ask;
  const now = Date.now();
  // A JSON copy: what is shown, signed and later run is exactly what a host gets back after
  // storing it, and no caller holds a reference to it.
  const copy = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
  const shown = showArguments(copy);
  const unsigned: Omit<PendingApproval, "signature"> = {
    id: crypto.randomUUID(),
    tool: tool.name,
    arguments: copy,
    rule,
    source: tool.source,
    summary: summarizeShown(shown),
    shown,
    shownDigest: await shownDigest(tool.name, { shown, args: copy }),
    requestedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + init.approvals.ttlMs).toISOString(),
    selection: init.selection,
    toolHash: await toolHash(tool),
  };
  if (init.userId !== undefined) unsigned.userId = init.userId;
  const plain = JSON.parse(JSON.stringify(unsigned)) as Omit<PendingApproval, "signature">;
  return { ...plain, signature: await init.approvals.signer.sign("approval", plain) };
}
