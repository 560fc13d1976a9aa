/**
 * A loopback proxy that adds `Authorization: Bearer TOKEN` to every request it forwards, for
 * clients that cannot send a header (the MCP conformance suite). `Host` and `Origin` pass
 * unchanged, so the server's DNS-rebinding checks still see what the client sent.
 *
 * @module
 */

/** A running proxy. */
export interface TokenProxy extends AsyncDisposable {
  /** The proxy's URL for the target's path. */
  url: string;
}

/**
 * Starts the proxy in front of `target`.
 *
 * @param target The MCP endpoint.
 * @param token The bearer token to add.
 * @returns The proxy.
 */
export function startTokenProxy(target: string, token: string): Promise<TokenProxy> {
  const upstream = new URL(target);
  const controller = new AbortController();
  const ready = Promise.withResolvers<TokenProxy>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: ({ port }) =>
      ready.resolve({
        url: `http://127.0.0.1:${port}${upstream.pathname}`,
        [Symbol.asyncDispose]: async () => {
          controller.abort();
          await server.finished;
        },
      }),
  }, async (request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${token}`);
    const response = await fetch(`${upstream.origin}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: request.signal,
    });
    return new Response(response.body, { status: response.status, headers: response.headers });
  });
  return ready.promise;
}
