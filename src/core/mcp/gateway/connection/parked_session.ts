import { type Client, type LegacyHandshake, legacyHandshakeOf } from "../../mcp_sdk.ts";
import { HttpClientTransport } from "../http/http_client_transport.ts";
import { type OpenClientSettings, openMcpClient } from "./open_mcp_client.ts";
import { sharedByJson } from "./era_verdicts.ts";

/**
 * What a parked 2025-era connection keeps to go on with its session on a new client, with no
 * `initialize`: the session id (`""` for a stateless server, which gave none) and the handshake.
 * It belongs to the one connection that parked it (one user's credentials, one server): it is
 * only ever used again by that connection, with that connection's own headers and OAuth.
 */
export interface ParkedSession {
  /** The session id; `""` when the server gave none. */
  readonly sessionId: string;
  /** What `initialize` answered (one shared object per distinct answer). */
  readonly handshake: LegacyHandshake;
}

/**
 * Whether a 2025-era client can be let go of and its session gone on with later: over Streamable
 * HTTP, connected, holding no standing event stream (the server's notifications come on it, a
 * parked connection would miss them). Cheap: the pool asks it of every idle connection.
 *
 * @param client The connected client.
 * @returns Whether `parkedSessionOf` gives what to keep.
 */
export function sessionParkable(client: Client): boolean {
  const transport = client.transport;
  return transport instanceof HttpClientTransport && !transport.holdsEventStream &&
    client.getProtocolEra() === "legacy" && client.getServerCapabilities() !== undefined;
}

/**
 * What a parkable 2025-era client (see `sessionParkable`) keeps when it is let go of; its
 * transport is told to leave the session open on the server when the client closes.
 *
 * @param client The connected client.
 * @returns What to keep, the handshake shared with every connection that got the same answer.
 */
export function parkedSessionOf(client: Client): ParkedSession | undefined {
  const transport = client.transport as HttpClientTransport | undefined;
  transport?.keepSession();
  const handshake = legacyHandshakeOf(client);
  if (transport === undefined || handshake === undefined) return undefined;
  const kept = shared(handshake);
  const sessionId = transport.sessionId;
  return sessionId ? { sessionId, handshake: kept.handshake } : kept.stateless;
}

/**
 * Ends a parked session on the server (`DELETE`, as closing a live one does): on a client built on
 * it with no round trip, closed at once. Best effort, as for a live session: a server that does
 * not answer expires the session in time.
 *
 * @param settings The connection's settings (its own headers and OAuth).
 * @param parked What the connection kept.
 */
export async function endParkedSession(
  settings: OpenClientSettings,
  parked: ParkedSession,
): Promise<void> {
  if (parked.sessionId === "") return; // a stateless server has nothing to end
  try {
    const { client } = await openMcpClient(settings, { resume: parked });
    await client.close();
  } catch {
    // Nothing more to do.
  }
}

/** A handshake, and the parked state of a stateless server that gave it (the same for all). */
interface Shared {
  handshake: LegacyHandshake;
  stateless: ParkedSession;
}

/**
 * One handshake object per distinct answer (content only, no session or credential in it), so
 * thousands of parked users of one server hold one, and users of a stateless server hold one
 * parked state (see `sharedByJson`). One too large to key by is kept unshared (as the live client
 * held it).
 */
function shared(handshake: LegacyHandshake): Shared {
  const stateless = () => Object.freeze({ sessionId: "", handshake });
  return sharedByJson(handshakes, {
    value: handshake,
    make: () => ({ handshake, stateless: stateless() }),
  }) ??
    { handshake, stateless: stateless() };
}

const handshakes = new Map<string, Shared>();
