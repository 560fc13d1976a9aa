/**
 * The scheme of a resource URI that names its server: `toolroute://SERVER/URI`, the server's
 * own URI after the server id's slash, as it is (so a template stays a template).
 */
const SERVED = "toolroute://";

/**
 * The resource URI that names its server: what `serve` lists for a URI two of a user's servers
 * both offer, and what a `resource_link` a tool returns is rewritten to. Reading it reads `uri`
 * from that server.
 */
export function servedUri(serverId: string, uri: string): string {
  return `${SERVED}${encodeURIComponent(serverId)}/${uri}`;
}

/**
 * A URI as a client that parses it as a URL reads its scheme: without leading spaces and
 * controls, tabs and newlines anywhere, the scheme in lower case. `TOOLROUTE://bank/x` and
 * ` toolroute://bank/x` are `toolroute://bank/x` to such a client, so serve treats them alike:
 * one server cannot list a URI that a client takes for another server's.
 */
function asClientReads(uri: string): string {
  // deno-lint-ignore no-control-regex
  const trimmed = uri.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+/, "");
  return /^toolroute:/i.test(trimmed) ? `toolroute:${trimmed.slice("toolroute:".length)}` : uri;
}

/** Whether a URI names a server in serve's own form, as a client reads it. */
export function looksServed(uri: string): boolean {
  return asClientReads(uri).startsWith("toolroute:");
}

/** The server and its own URI of a `toolroute://` URI, or `undefined` for any other. */
export function parseServed(uri: string): { serverId: string; uri: string } | undefined {
  uri = asClientReads(uri);
  if (!uri.startsWith(SERVED)) return undefined;
  const rest = uri.slice(SERVED.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  try {
    return { serverId: decodeURIComponent(rest.slice(0, slash)), uri: rest.slice(slash + 1) };
  } catch {
    return undefined;
  }
}

/**
 * A tool's content blocks with each `resource_link`'s URI in the `toolroute://` form of the
 * tool's server, so the client can read what the link names through `serve`.
 */
export function servedLinks(content: readonly unknown[], serverId: string): unknown[] {
  return content.map((block) => {
    const shape = block as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } } | null;
    if (shape?.type === "resource_link" && typeof shape.uri === "string") {
      return { ...shape, uri: servedUri(serverId, shape.uri) };
    }
    // An embedded resource claiming serve's form of another server's URI is shown as this one's.
    const uri = shape?.type === "resource" ? shape.resource?.uri : undefined;
    if (typeof uri !== "string" || !looksServed(uri)) return block;
    return { ...shape, resource: { ...shape!.resource, uri: servedUri(serverId, uri) } };
  });
}
