import { sha256Hex } from "../../../sha256_hex.ts";
import type { KeyValueStore } from "../../../store/key_value_store.ts";
import { type PendingAuthorization, randomToken } from "./store_oauth_provider.ts";

/** What a ticket stands for, under `["oauth", "ticket", sha256(ticket)]`. */
interface TicketRecord {
  /** The `state` of the pending authorization. */
  state: string;
  /** The user (`""` for none). */
  user: string;
  serverId: string;
}

/**
 * Issues a single-use ticket for a pending authorization: the link a person opens carries the
 * ticket, never the authorization URL, so the first browser to redeem it is the one bound to the
 * authorization. Only the ticket's digest is stored.
 *
 * @param store The store of pending authorizations.
 * @param target The pending authorization's `state`, user and server.
 * @param options How long the ticket can be redeemed (`ttlMs`).
 */
export async function issueAuthorizationTicket(
  store: KeyValueStore,
  target: TicketRecord,
  options: { ttlMs: number },
): Promise<string> {
  const ticket = randomToken();
  await store.set(["oauth", "ticket", await sha256Hex(ticket)], target, {
    expireIn: options.ttlMs,
  });
  return ticket;
}

/**
 * Redeems a ticket once (claimed atomically): binds its pending authorization to a fresh random
 * cookie value, stored as a digest with the pending state, and returns where to send the browser.
 * `undefined` for a ticket that is unknown, expired or used, or whose authorization is gone.
 *
 * @param store The store of pending authorizations.
 * @param options How long the binding lasts (`ttlMs`, the pending authorization's lifetime).
 * @returns Where to send the browser (`location`), the binding cookie's value (`binding`; its
 *   digest is kept with the pending state) and what the ticket stood for, or `undefined`.
 */
export async function redeemAuthorizationTicket(
  store: KeyValueStore,
  ticket: string,
  options: { ttlMs: number },
): Promise<(TicketRecord & { location: string; binding: string }) | undefined> {
  const { ttlMs } = options;
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(ticket)) return undefined;
  const digest = await sha256Hex(ticket);
  const fresh = await store.setIfAbsent(["oauth", "ticket-used", digest], true, {
    expireIn: ttlMs,
  });
  if (!fresh) return undefined;
  const record = await store.get<TicketRecord>(["oauth", "ticket", digest]);
  await store.delete(["oauth", "ticket", digest]);
  if (record === undefined) return undefined;
  const key = ["oauth", "pending", record.state];
  const pending = await store.get<PendingAuthorization>(key);
  if (pending === undefined || pending.authorizationUrl === undefined) return undefined;
  if (pending.user !== record.user || pending.serverId !== record.serverId) return undefined;
  // A pending authorization is bound once: a second ticket for it cannot move it elsewhere.
  if (pending.binding !== undefined) return undefined;
  const binding = randomToken();
  await store.set(key, { ...pending, binding: await sha256Hex(binding) }, { expireIn: ttlMs });
  return { ...record, location: pending.authorizationUrl, binding };
}
