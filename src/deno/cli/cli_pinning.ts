import type { PinningOptions, PinStore } from "../../core/mcp/gateway/pin_store.ts";
import { LOCK_HINT } from "./lock_command.ts";
import { lockPath, readToolLock, storeFromLock } from "./tool_lock.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";

/** How the CLI pins tools, and the lock file in force. */
export interface CliPinning {
  /** The gateway's pinning option. */
  pinning: PinningOptions;
  /** The lock file in force, when there is one. */
  lock?: { path: string; tools: number };
}

/**
 * The CLI's pinning: with a `toolroute.lock` beside the config, exactly its pins (a tool missing
 * from it or different is withheld); otherwise trust on first use, in `store` (shared by
 * several `serve` processes) or in memory.
 *
 * @param store The store of `serve --store`, if any.
 * @returns The pinning option and the lock in force.
 */
export async function cliPinning(config: ToolrouteConfig, store?: PinStore): Promise<CliPinning> {
  const path = lockPath(config);
  const lock = path === undefined ? undefined : await readToolLock(path);
  if (path === undefined || lock === undefined) {
    return { pinning: store === undefined ? {} : { store } };
  }
  const pins = await storeFromLock(lock);
  return {
    pinning: { store: pins, trustOnFirstUse: false, reviewHint: LOCK_HINT },
    lock: { path, tools: (await pins.list(["pins"])).length },
  };
}
