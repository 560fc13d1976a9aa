import type { KeyValueStore } from "../store/key_value_store.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { ApprovalScope, Grant } from "../policy_types.ts";
import { type ApprovalSigner, toolHash } from "./approval_signer.ts";
import type { PolicyDecision } from "./policy_engine.ts";

/** The store's key prefix of grants (a store that encrypts by prefix names it). */
export const GRANT_PREFIX = "grants";
/** Eight hours: how long a `session` grant lasts by default. */
const DEFAULT_GRANT_TTL_MS = 8 * 60 * 60_000;

/** Requests that name no user share one principal, kept apart from every named user. */
function userKey(userId: string | undefined): string {
  return userId === undefined ? "-" : `u:${userId}`;
}

/**
 * Grants in the router's store: made when a person answers an ask with `scope: "session"` or
 * `"always"`, found for later calls of the same user, tool and rule, listed and revoked by the
 * host. Each grant is signed with the approvals' key; one that does not verify (written into a
 * shared store by someone without the key, or changed there) is ignored.
 */
export class GrantStore {
  #store: KeyValueStore;
  #signer: ApprovalSigner;
  #ttlMs: number;

  /** @param ttlMs How long a `session` grant lasts; default eight hours. */
  constructor(store: KeyValueStore, signer: ApprovalSigner, ttlMs: number = DEFAULT_GRANT_TTL_MS) {
    this.#store = store;
    this.#signer = signer;
    this.#ttlMs = ttlMs;
  }

  /**
   * Records a grant for the rule that asked about a call.
   *
   * @param ask The user, the ask decision, the scope, the approval's id and the reason.
   */
  async grant(
    tool: RoutedTool,
    ask: {
      userId?: string;
      decision: Pick<PolicyDecision, "rule" | "scope">;
      scope: Exclude<ApprovalScope, "once">;
      approvalId: string;
      reason?: string;
    },
  ): Promise<Grant> {
    const now = Date.now();
    const unsigned: Omit<Grant, "signature"> = {
      id: crypto.randomUUID(),
      tool: tool.name,
      source: tool.source,
      toolHash: await toolHash(tool),
      rule: ask.decision.rule,
      ruleScope: ask.decision.scope,
      scope: ask.scope,
      approvalId: ask.approvalId,
      createdAt: new Date(now).toISOString(),
    };
    if (ask.userId !== undefined) unsigned.userId = ask.userId;
    if (ask.scope === "session") unsigned.expiresAt = new Date(now + this.#ttlMs).toISOString();
    if (ask.reason !== undefined) unsigned.reason = ask.reason;
    const grant: Grant = { ...unsigned, signature: await this.#signer.sign("grant", unsigned) };
    await this.#store.set(
      [GRANT_PREFIX, userKey(ask.userId), grant.id],
      grant,
      ask.scope === "session" ? { expireIn: this.#ttlMs } : {},
    );
    return grant;
  }

  /**
   * The grant that lets a call the policy asks about run, if any: same user, tool (and tool
   * definition), rule and policy, unexpired, with its signature intact.
   *
   * @returns The grant, or `undefined`.
   */
  async find(
    tool: RoutedTool,
    userId: string | undefined,
    decision: Pick<PolicyDecision, "rule" | "scope">,
  ): Promise<Grant | undefined> {
    // The tool's hash is cached, and an ask that finds no grant needs it for its approval anyway.
    const hash = await toolHash(tool);
    const now = Date.now();
    for (const { value: grant } of await this.#store.list<Grant>([GRANT_PREFIX, userKey(userId)])) {
      if (
        grant === null || typeof grant !== "object" || grant.tool !== tool.name ||
        grant.source !== tool.source || grant.toolHash !== hash || grant.rule !== decision.rule ||
        grant.ruleScope !== decision.scope || grant.userId !== userId
      ) continue;
      if (grant.scope !== "always" && !(Date.parse(grant.expiresAt ?? "") > now)) continue;
      if (await this.#signer.verify("grant", grant)) return grant;
    }
    return undefined;
  }

  /**
   * The grants in force, of one user or of everyone.
   *
   * @param userId The user, or `undefined` for every user's.
   * @returns The grants, with signatures that verify.
   */
  async list(userId?: { userId?: string }): Promise<Grant[]> {
    const prefix = userId === undefined ? [GRANT_PREFIX] : [GRANT_PREFIX, userKey(userId.userId)];
    const out: Grant[] = [];
    const now = Date.now();
    for (const { value } of await this.#store.list<Grant>(prefix)) {
      if (value === null || typeof value !== "object") continue;
      if (value.scope !== "always" && !(Date.parse(value.expiresAt ?? "") > now)) continue;
      if (await this.#signer.verify("grant", value)) out.push(value);
    }
    return out;
  }

  /** Ends a grant. */
  async revoke(id: string): Promise<boolean> {
    let found = false;
    for (const { key, value } of await this.#store.list<Grant>([GRANT_PREFIX])) {
      if (value !== null && typeof value === "object" && value.id === id) {
        await this.#store.delete(key);
        found = true;
      }
    }
    return found;
  }
}
