import type { Client } from "../../mcp_sdk.ts";
import type { ConnectionSettings } from "./connection_settings.ts";

/**
 * In the 2026-07-28 era a server sends list changes only on a `subscriptions/listen` stream the
 * client opened (2025 servers send them unasked): one is opened when the server says its tool
 * list changes, before the tools are listed, so no change falls between. The SDK hands its
 * notifications to the same handler as in 2025. When the stream ends the connection counts as
 * lost, so the next use connects, lists and listens again; without a stream (refused, or not
 * offered) the list follows `toolListTtlMs`. A user's own connections listen only with
 * `eventStream: "always"`: a held stream costs each pooled connection a socket on both sides, as
 * a standing 2025 event stream to a stateless server would.
 *
 * @param client The client just opened, in the 2026-07-28 era.
 * @param options The connection's settings, and what to do when the stream ends.
 * @returns Whether a stream is held (a connection that holds one is never parked).
 */
export async function listenForListChanges(
  client: Client,
  options: { settings: ConnectionSettings; onEnd: () => void },
): Promise<boolean> {
  const s = options.settings;
  if (s.userId !== undefined && s.eventStream !== "always") return false;
  if (client.getServerCapabilities()?.tools?.listChanged !== true) return false;
  try {
    const subscription = await client.listen({ toolsListChanged: true }, {
      timeout: s.connectTimeoutMs,
    });
    void subscription.closed.then(options.onEnd);
    return true;
  } catch {
    return false; // No stream: the tool list is listed again by age.
  }
}
