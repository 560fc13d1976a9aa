import { mcpHttpHandler } from "../../core/mcp/serve/mcp_http_handler.ts";
import type { ListenAddress } from "./listen_address.ts";
import {
  answerOAuthCallback,
  answerOAuthStart,
  answerOAuthStatus,
  OAUTH_CALLBACK_PATH,
  OAUTH_START_PATH,
  OAUTH_STATUS_PATH,
} from "./oauth_callback.ts";
import { bearerToken, bearerUsers } from "../../core/mcp/serve/bearer_users.ts";
import type { ServeContext } from "./serve_stdio.ts";
import { UsageError } from "./usage_error.ts";
import { tokenBanner } from "./serve_token.ts";
import { DEFAULT_HTTP_BOUNDS, serveBounded } from "./bounded_http_server.ts";

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
 * Serves Streamable HTTP at `http://HOST:PORT/mcp` until the stop signal: each request gets the
 * tool set of its token's user (a bearer token is always required, also on loopback: another
 * local user could reach the port); Host and Origin are checked. It listens with
 * `serveBounded`, not `Deno.serve`, which has no head timeout and no connection limit: at most
 * `http.maxConnections` connections (default 256, more get `503`), at most
 * `http.maxConnectionsPerUser` (default 64, more get `429`) with one bearer token, and a request
 * head that is not whole within `http.headTimeoutMs` (default 10000) of the connection ends it.
 *
 * @tags allow-net
 * @param listen Where to listen (`http`) and the bearer tokens (`auth`, always required).
 */
export async function serveHttp(
  context: ServeContext,
  listen: { http: ListenAddress; auth: HttpAuth },
): Promise<void> {
  const { http, auth } = listen;
  const { tokens, anonymous } = auth;
  const { served, config, io, stop, toolsChanged } = context;
  const handler = mcpHttpHandler({
    tools: (request) =>
      served.expose(anonymous ? undefined : request.userId, request.signal, request.sessionId),
    tokens,
    stateless: config.http.stateless,
    allowedHosts: config.http.allowedHosts ??
      (http.loopback ? LOOPBACK_HOSTS : [hostForHeader(http.hostname), ...LOOPBACK_HOSTS]),
    allowedOrigins: config.http.allowedOrigins,
    timeoutMs: config.callTimeoutMs,
  });
  toolsChanged.add((userId) => void handler.notifyToolListChanged(userId).catch(() => {}));
  const oauth = served.oauth;
  // The handler's own lookup: by digest, never compared by prefix.
  const usersOfTokens = bearerUsers(tokens);
  const userOf = async (request: Request) => {
    const token = bearerToken(request);
    const user = token === undefined ? undefined : await usersOfTokens(token);
    if (user === undefined) return undefined;
    return anonymous ? {} : { userId: user };
  };
  const answer = (request: Request): Response | Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (oauth === undefined) return handler(request);
    if (path === OAUTH_CALLBACK_PATH) {
      return answerOAuthCallback(request, oauth, {
        onAuthorized: (userId) => {
          for (const notify of toolsChanged) notify(userId);
        },
      });
    }
    if (path === OAUTH_START_PATH) return answerOAuthStart(request, oauth);
    if (path === OAUTH_STATUS_PATH) {
      return answerOAuthStatus(request, {
        userOf,
        links: (userId) => served.signInLinks(userId),
      });
    }
    return handler(request);
  };
  let server: { finished: Promise<void> };
  try {
    server = serveBounded({
      hostname: http.hostname,
      port: http.port,
      signal: stop,
      maxConnections: config.http.maxConnections ?? DEFAULT_HTTP_BOUNDS.maxConnections,
      headTimeoutMs: config.http.headTimeoutMs ?? DEFAULT_HTTP_BOUNDS.headTimeoutMs,
      maxConnectionsPerUser: config.http.maxConnectionsPerUser ??
        DEFAULT_HTTP_BOUNDS.maxConnectionsPerUser,
      onListen: ({ hostname, port }) => {
        const url = `http://${hostForHeader(hostname)}:${port}/mcp`;
        io.err(`toolroute: serving at ${url} (bearer token required)`);
        if (!auth.generated) return;
        const token = Object.keys(tokens)[0];
        tokenBanner(token, url, { tokenFile: auth.tokenFile }).forEach((line) => io.err(line));
      },
    }, answer);
  } catch (error) {
    await handler.close();
    throw explainListen(http, error);
  }
  await server.finished;
  await handler.close();
}

/**
 * The OAuth redirect URI `serve --http` hosts, `http://HOST:PORT/oauth/callback`; `undefined` for
 * port 0 (not known before listening), which leaves OAuth off.
 *
 * @param http Where the server listens.
 */
export function oauthRedirectUrl(http: ListenAddress): string | undefined {
  if (http.port === 0) return undefined;
  const host = http.hostname === "0.0.0.0" || http.hostname === "::" ? "localhost" : http.hostname;
  return `http://${hostForHeader(host)}:${http.port}${OAUTH_CALLBACK_PATH}`;
}

/** A failure to listen as a usage error (exit 2) that names the address and what to do. */
function explainListen(http: ListenAddress, error: unknown): unknown {
  const address = `${hostForHeader(http.hostname)}:${http.port}`;
  if (error instanceof Deno.errors.AddrInUse) {
    return new UsageError(
      `Cannot listen on ${address}: the address is already in use; stop the program using it or pass another port, e.g. --http ${
        hostForHeader(http.hostname)
      }:${http.port === 8787 ? 8788 : 8787}`,
    );
  }
  if (error instanceof Deno.errors.AddrNotAvailable) {
    return new UsageError(
      `Cannot listen on ${address}: no network interface of this machine has that address; use 127.0.0.1`,
    );
  }
  return error;
}

function hostForHeader(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
