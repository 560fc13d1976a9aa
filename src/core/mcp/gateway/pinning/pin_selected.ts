import type { MissingTool } from "../../../tool_source.ts";
import type { SelectedServer } from "../connection/connect_selected.ts";
import type { ToolPins } from "./tool_pins.ts";
import type { ServerConnection } from "../connection/server_connection.ts";

/**
 * A selected server seen through its pins: its connection's identity and version, with only the
 * tools that may be exposed.
 */
export interface PinnedServer {
  id: string;
  connection: Pick<ServerConnection, "serial" | "version" | "tools" | "config">;
}

/** The servers of one request after pinning: the user's, the global ones, the withheld tools. */
export interface PinnedSelection {
  user: PinnedServer[];
  global: PinnedServer[];
  missing: MissingTool[];
  /** Names the withheld tools, so a cached tool list is reused only for the same verdicts. */
  cacheSuffix: string;
}

/**
 * Applies pins to the connected servers of one request (all servers checked in parallel).
 * Without pins (`pinning: false`) the servers pass through unchanged. A global server is checked
 * against the request's user's pins (their own acceptances over the server-wide pins).
 *
 * @param pins The gateway's pins, or `undefined` when pinning is off.
 * @param request The request's user.
 * @returns The filtered servers and the withheld tools.
 */
export async function pinSelected(
  pins: ToolPins | undefined,
  connected: { user: readonly SelectedServer[]; global: readonly SelectedServer[] },
  request: { userId?: string },
): Promise<PinnedSelection> {
  const { userId } = request;
  if (pins === undefined) {
    return {
      user: [...connected.user],
      global: [...connected.global],
      missing: [],
      cacheSuffix: "",
    };
  }
  const view = async (server: SelectedServer): Promise<[PinnedServer, MissingTool[]]> => {
    const { connection } = server;
    const checked = await pins.check(
      { serverId: server.id, userId, global: !server.user },
      connection.tools,
    );
    return [{
      id: server.id,
      connection: {
        serial: connection.serial,
        version: connection.version,
        tools: checked.tools,
        config: connection.config,
      },
    }, checked.missing];
  };
  const [user, global] = await Promise.all([
    Promise.all(connected.user.map(view)),
    Promise.all(connected.global.map(view)),
  ]);
  const missing = [...user, ...global].flatMap(([, withheld]) => withheld);
  return {
    user: user.map(([server]) => server),
    global: global.map(([server]) => server),
    missing,
    cacheSuffix: missing.map((entry) => `\u0000!${entry.name}`).join(""),
  };
}
