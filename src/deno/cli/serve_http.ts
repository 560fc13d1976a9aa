import { mcpHttpHandler } from "../../core/mcp/serve/mcp_http_handler.ts";
import type { ListenAddress } from "./listen_address.ts";
import type { ServeContext } from "./serve_stdio.ts";
import { tokenBanner } from "./serve_token.ts";

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The user id the handler sees for the single token of a config without `users`. */
export const ANONYMOUS = "-";

/** How `serve --http` authenticates: always with bearer tokens. */
export interface HttpAuth {
  /** Bearer tokens to user ids. */
  readonly tokens: Record<string, string>;
  /** One token and no users: the tool set is that of no user. */
  readonly anonymous: boolean;
  /** Whether the single token was generated at start (then printed once). */
  readonly generated: boolean;
  /** Where the single token was written. */
  readonly tokenFile?: string;
}

/**
 * Serves Streamable HTTP at `http://HOST:PORT/mcp` on `Deno.serve` until the stop signal: each
 * request gets the tool set of its token's user (a bearer token is always required, also on
 * loopback: another local user could reach the port); Host and Origin are checked.
 *
 * @tags allow-net
 * @param context The router, config, logs and stop signal.
 * @param http Where to listen.
 * @param auth The bearer tokens (always required).
 */
export async function serveHttp(
  context: ServeContext,
  http: ListenAddress,
  auth: HttpAuth,
): Promise<void> {
  const { tokens, anonymous } = auth;
  const { served, config, io, stop, toolsChanged } = context;
  const handler = mcpHttpHandler({
    tools: (request) => served.expose(anonymous ? undefined : request.userId, request.signal),
    tokens,
    stateless: config.http.stateless,
    allowedHosts: config.http.allowedHosts ??
      (http.loopback ? LOOPBACK_HOSTS : [hostForHeader(http.hostname), ...LOOPBACK_HOSTS]),
    allowedOrigins: config.http.allowedOrigins,
    timeoutMs: config.callTimeoutMs,
  });
  toolsChanged.add((userId) => void handler.notifyToolListChanged(userId).catch(() => {}));
  const server = Deno.serve({
    hostname: http.hostname,
    port: http.port,
    signal: stop,
    onListen: ({ hostname, port }) => {
      const url = `http://${hostForHeader(hostname)}:${port}/mcp`;
      io.err(`toolroute: serving at ${url} (bearer token required)`);
      if (auth.generated) {
        for (const line of tokenBanner(Object.keys(tokens)[0], url, auth.tokenFile)) io.err(line);
      }
    },
  }, handler);
  await server.finished;
  await handler.close();
}

function hostForHeader(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
