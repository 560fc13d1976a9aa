import type { KeyValueStore } from "../store/key_value_store.ts";
import type { CallSettings } from "../tool_call_types.ts";
import type { ApprovalHandler, ApprovalSelection } from "../policy_types.ts";
import type { ApprovalSigner } from "./approval_signer.ts";
import type { PolicyEngine } from "./policy_engine.ts";
import type { GrantStore } from "./grant_store.ts";
import type { CallLimiter } from "./call_limiter.ts";

// What the gate is built from lives here, apart from the gate: its parts (issue_approval.ts,
// settle_approval.ts, approval_scope.ts) and the router import it, so imports point one way.

/** What every tool set of one router shares for approvals. */
export interface ApprovalSettings {
  signer: ApprovalSigner;
  /** Remembers used approval ids. */
  store: KeyValueStore;
  /** How long an approval stays valid, in milliseconds. */
  ttlMs: number;
  approve?: ApprovalHandler;
  /** Lasting approvals (`scope: "session"` or `"always"`). */
  grants: GrantStore;
}

/** What a {@linkcode PolicyGate} is built from. */
export interface PolicyGateInit {
  /** The policies of this request. */
  engine: PolicyEngine;
  approvals: ApprovalSettings;
  /** The request's selection, as plain data. */
  selection: ApprovalSelection;
  userId?: string;
  settings: CallSettings;
  /** Counts calls against the policies' limits, when they have any. */
  limiter?: CallLimiter;
}
