import type { ToolSet } from "./tool_set.ts";
import { ApprovalSigner } from "./policy/approval_signer.ts";

/**
 * The signer of the router that made each tool set (a side channel, so `ToolSet` names no signer
 * in its API). A 2026-07-28 `serve` call signs with it the state the client holds between rounds,
 * so that every instance sharing the router's `approvalSecret` can check it.
 */
const signers = new WeakMap<ToolSet, ApprovalSigner>();

/** The signer of tool sets no router made: this process's own, with a random secret. */
let ownSigner: ApprovalSigner | undefined;

/**
 * Keeps the signer of the router that made a tool set.
 *
 * @param toolSet The tool set the router made.
 * @param signer The router's signer.
 */
export function keepToolSetSigner(toolSet: ToolSet, signer: ApprovalSigner): void {
  signers.set(toolSet, signer);
}

/**
 * The signer of the router that made a tool set, else this process's own.
 *
 * @param toolSet The tool set.
 */
export function toolSetSigner(toolSet: ToolSet): ApprovalSigner {
  return signers.get(toolSet) ?? (ownSigner ??= new ApprovalSigner());
}
