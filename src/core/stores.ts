/**
 * toolroute's stores and records (`@toolroute/toolroute/stores`): where a router keeps what must
 * outlive one call, for a host that wires persistence and an audit trail. The key-value store of
 * used approvals and pins (`MemoryStore`, `EncryptedStore`, or a `KeyValueStore` of one's own),
 * the store of results cut to their budget (`KeyValueResultStore`) and the audit
 * sink of every decision (`AuditSink`). Web-standard, like the root entry; `./deno` has the
 * file, SQLite, Deno KV and Redis stores.
 *
 * @example Keep single-use approvals in memory
 * ```ts
 * import { MemoryStore } from "@toolroute/toolroute/stores";
 * import { assertEquals } from "@std/assert";
 *
 * const store = new MemoryStore();
 * assertEquals(await store.setIfAbsent(["used", "approval-1"], true), true);
 * assertEquals(await store.setIfAbsent(["used", "approval-1"], true), false);
 * ```
 *
 * @module
 */

export { MemoryStore } from "./store/memory_store.ts";
export { EncryptedStore } from "./store/encrypted_store.ts";
export type { StoreKey } from "./store/encrypted_store.ts";
export type {
  KeyValueEntry,
  KeyValueIncrementOptions,
  KeyValueSetOptions,
  KeyValueStore,
} from "./store/key_value_store.ts";
export { KeyValueResultStore } from "./key_value_result_store.ts";
export type { ResultStore, StoredResultInfo } from "./result_store.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./audit_sink.ts";
