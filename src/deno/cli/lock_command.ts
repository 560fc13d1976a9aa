import type { MissingTool } from "../../core/tool_source.ts";
import { MemoryStore } from "../../core/store/memory_store.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import {
  formatToolLock,
  LOCK_FILE,
  lockedTools,
  lockFromStore,
  lockPath,
  readToolLock,
  storeFromLock,
  type ToolLock,
} from "./tool_lock.ts";
import { UsageError } from "./usage_error.ts";
import { configGateway } from "./config_gateway.ts";

/** What a withheld or changed tool's reason tells the reader to do, in CLI terms. */
export const LOCK_HINT = `review it, then run "toolroute lock" to update ${LOCK_FILE}`;

/**
 * `toolroute lock`: connects to every remote server of the config (global and users'), and writes
 * the definitions and hashes of their tools to `toolroute.lock` beside the config. With
 * `--check`, compares instead and exits 1 on any drift (changed, new or removed tools, or a
 * server that cannot be reached), for CI.
 *
 * @param flags `config`, `workspace`, `check`.
 */
export async function lockCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  const config = await configFromFlags(flags, { ask: io.ask });
  if (config.path === undefined) {
    throw new UsageError(
      '"toolroute lock" needs a config file: pass --config FILE or create toolroute.json',
    );
  }
  const path = lockPath(config);
  if (path === undefined) {
    io.err("toolroute: the config has no remote MCP servers; there is nothing to lock");
    return 0;
  }
  const check = flags.check === true;
  // Rewriting is the way out of a lock that does not check (an entry that does not match its
  // hash): then it is rewritten from the servers as if new, and said so. `--check` refuses it.
  const existing = check ? await readToolLock(path) : await readToolLock(path).catch((error) => {
    if (!(error instanceof TypeError)) throw error;
    io.err(`toolroute: ${error.message}; rewriting it from the servers`);
    return undefined;
  });
  if (check && existing === undefined) {
    io.err(`toolroute: no lock file at "${path}"; run "toolroute lock" to write one`);
    return 1;
  }
  const store = check ? await storeFromLock(existing!) : new MemoryStore();
  await using gateway = configGateway(config, {
    pinning: { store, trustOnFirstUse: !check, reviewHint: LOCK_HINT },
    // The lock must see every server: each gets its whole connect deadline.
    listWaitMs: Infinity,
  });
  const seen = new Set<string>();
  const drift: MissingTool[] = [];
  // Every configured server must answer: a server not reached is named, with its user and why.
  const unreachable: string[] = [];
  const down = new Set<string>();
  const collect = (resolution: Awaited<ReturnType<typeof gateway.resolve>>, userId?: string) => {
    for (const tool of resolution.global) seen.add(`global/${tool.origin}`);
    for (const tool of resolution.user) seen.add(`user/${userId}/${tool.origin}`);
    for (const entry of resolution.missing) {
      if (!entry.name.includes("/")) {
        const whose = userId === undefined ? "" : ` (user "${userId}")`;
        unreachable.push(`cannot reach "${entry.name}"${whose}: ${entry.reason}`);
        down.add(userId === undefined ? `global/${entry.name}` : `user/${userId}/${entry.name}`);
        continue;
      }
      drift.push(entry);
      seen.add(userId === undefined ? `global/${entry.name}` : `user/${userId}/${entry.name}`);
    }
  };
  collect(await gateway.resolve({ serverIds: Object.keys(config.mcpServers) }));
  for (const user of config.users) {
    const ids = Object.keys(user.mcpServers);
    if (ids.length > 0) {
      collect(await gateway.resolve({ serverIds: ids, userId: user.id }), user.id);
    }
  }
  for (const line of unreachable) io.err(`toolroute: ${line}`);
  if (!check) {
    if (unreachable.length > 0) {
      io.err(
        `toolroute: "${path}" was not written: every configured server must answer (${unreachable.length} did not)`,
      );
      return 1;
    }
    const lock = await lockFromStore(store);
    await Deno.writeTextFile(path, formatToolLock(lock));
    io.err(`toolroute: locked ${origins(lock).size} tools in "${path}"${changes(existing, lock)}`);
    return 0;
  }
  for (const entry of drift) io.err(`toolroute: drift: ${entry.name}: ${entry.reason}`);
  // The tools of a server not reached are not known to be gone: it is reported above instead.
  const removed = lockedTools(existing!).map(([where]) => where).filter((where) =>
    !seen.has(where.join("/")) && !down.has(where.slice(0, -1).join("/"))
  ).map((where) => where.join("/"));
  for (const origin of removed) {
    io.err(`toolroute: drift: ${origin.replace(/^global\//, "")}: locked but no longer offered`);
  }
  const failed = drift.length + removed.length + unreachable.length;
  if (failed > 0) {
    io.err(
      `toolroute: ${failed} difference(s) from "${path}"${
        unreachable.length > 0 ? `, ${unreachable.length} of them servers not reached` : ""
      }; ${LOCK_HINT.replace(/^review it/, "review them")}`,
    );
    return 1;
  }
  io.err(`toolroute: all ${origins(existing!).size} tools match "${path}"`);
  return 0;
}

function origins(lock: ToolLock): Set<string> {
  return new Set(lockedTools(lock).map(([where]) => where.join("/")));
}

function hashes(lock: ToolLock | undefined): Map<string, string> {
  return new Map(lock && lockedTools(lock).map(([where, tool]) => [where.join("/"), tool.hash]));
}

function changes(before: ToolLock | undefined, after: ToolLock): string {
  if (before === undefined) return "";
  const old = hashes(before);
  const now = hashes(after);
  const added = [...now.keys()].filter((key) => !old.has(key)).length;
  const removed = [...old.keys()].filter((key) => !now.has(key)).length;
  const changed = [...now].filter(([key, hash]) => old.has(key) && old.get(key) !== hash).length;
  return ` (${added} added, ${changed} changed, ${removed} removed)`;
}
