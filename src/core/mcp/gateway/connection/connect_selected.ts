import type { MissingTool } from "../../../tool_source.ts";
import type { ServerConnection } from "./server_connection.ts";

/** One server a request selected: a user's own, or a global one. */
export interface SelectedServer {
  id: string;
  /** Whether it is the request user's own server. */
  user: boolean;
  /** Its connection (lazy). */
  connection: ServerConnection;
}

/** The selected servers that answered, by tier, and the ones that did not. */
export interface ConnectedServers {
  /** The user's servers that are ready. */
  user: SelectedServer[];
  /** The global servers that are ready and not replacing a failed user server of their id. */
  global: SelectedServer[];
  /** The servers that could not be reached, and why. */
  missing: MissingTool[];
}

/** How long a request waits for its servers, and what happens to the ones it stops waiting for. */
export interface ConnectWait {
  /** Ends the wait for connections. */
  signal?: AbortSignal;
  /** Most milliseconds to wait for the servers; default `Infinity`: each server's connect deadline. */
  waitMs?: number;
  /**
   * Called when a server the request stopped waiting for is ready after all (its tools can be
   * listed now); never called for a server that fails.
   */
  onArrived?: (server: SelectedServer) => void;
}

/**
 * Lists the tools of every selected server in parallel, connecting where needed, for at most
 * `wait.waitMs`: a server still connecting then is reported in `missing` as starting (it goes on
 * connecting; `onArrived` tells when it is ready). A server that fails is reported in `missing`;
 * when a user's server fails or is still starting, the global server of the same id is left out
 * too, so a user's call never falls back to it.
 *
 * @param selected The selected servers.
 * @param wait The signal and bound of the wait; default: no bound of its own.
 * @returns The ready servers by tier and the missing ones.
 */
export async function connectSelected(
  selected: readonly SelectedServer[],
  wait: ConnectWait = {},
): Promise<ConnectedServers> {
  const { signal, waitMs = Infinity } = wait;
  const listings = selected.map((s) =>
    s.connection.listTools(signal).then(
      () => ({ ok: true as const }),
      (reason: unknown) => ({ ok: false as const, reason }),
    )
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = waitMs === Infinity
    ? undefined
    : new Promise<typeof STARTING>((resolve) => timer = setTimeout(resolve, waitMs, STARTING));
  const results = await Promise.all(
    bound === undefined ? listings : listings.map((listing) => Promise.race([listing, bound])),
  );
  clearTimeout(timer);
  const failedUserIds = new Set<string>();
  const ready: SelectedServer[] = [];
  const missing: MissingTool[] = [];
  results.forEach((result, i) => {
    const server = selected[i];
    const { id, user } = server;
    if (result !== STARTING && result.ok) return void ready.push(server);
    if (user) failedUserIds.add(id);
    const shadowsGlobal = user && selected.some((s) => !s.user && s.id === id);
    const whose = user ? "the user's" : "the global";
    const instead = shadowsGlobal ? "; the global server of this id is not used instead" : "";
    // Still connecting: its tools come with the next list, which its arrival announces. Joined
    // without the request's signal: the connect outlives the request that started it.
    if (result === STARTING && !signal?.aborted && wait.onArrived !== undefined) {
      server.connection.listTools().then(() => wait.onArrived!(server), () => {});
    }
    const state = result === STARTING
      ? `is starting (not ready within ${waitMs} ms); its tools are listed once it answers`
      : `is unavailable: ${
        result.reason instanceof Error ? result.reason.message : String(result.reason)
      }`;
    missing.push({
      selection: "mcpServers",
      name: id,
      reason: `${whose} MCP server ${state}${instead}`,
    });
  });
  return {
    user: ready.filter((s) => s.user),
    global: ready.filter((s) => !s.user && !failedUserIds.has(s.id)),
    missing,
  };
}

const STARTING: unique symbol = Symbol("starting");
