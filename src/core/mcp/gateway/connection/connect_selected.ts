import type { MissingTool } from "../../../tool_source.ts";
import type { ServerConnection } from "./server_connection.ts";

/** One server a request selected: a user's own, or a global one. */
export interface SelectedServer {
  /** The server id. */
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

/**
 * Lists the tools of every selected server in parallel, connecting where needed. A server that
 * fails is reported in `missing`; when a user's server fails, the global server of the same id is
 * left out too, so a user's call never falls back to it.
 *
 * @param selected The selected servers.
 * @param signal Ends the wait for connections.
 * @returns The ready servers by tier and the missing ones.
 */
export async function connectSelected(
  selected: readonly SelectedServer[],
  signal?: AbortSignal,
): Promise<ConnectedServers> {
  const results = await Promise.allSettled(selected.map((s) => s.connection.listTools(signal)));
  const failedUserIds = new Set<string>();
  const ready: SelectedServer[] = [];
  const missing: MissingTool[] = [];
  results.forEach((result, i) => {
    const { id, user } = selected[i];
    if (result.status === "fulfilled") return void ready.push(selected[i]);
    if (user) failedUserIds.add(id);
    const why = result.reason instanceof Error ? result.reason.message : String(result.reason);
    const shadowsGlobal = user && selected.some((s) => !s.user && s.id === id);
    missing.push({
      selection: "mcpServers",
      name: id,
      reason: `${user ? "the user's" : "the global"} MCP server is unavailable: ${why}${
        shadowsGlobal ? "; the global server of this id is not used instead" : ""
      }`,
    });
  });
  return {
    user: ready.filter((s) => s.user),
    global: ready.filter((s) => !s.user && !failedUserIds.has(s.id)),
    missing,
  };
}
