const ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
].join(", ");

/** Answers a CORS preflight (`OPTIONS`) from an origin that already passed the allowlist. */
export function corsPreflight(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin",
    },
  });
}

/**
 * Lets a browser page of an allowed origin read the response (and its session id); a `null`
 * origin (non-browser clients) adds nothing.
 */
export function withCors(response: Response, origin: string | null): Response {
  if (origin === null) return response;
  try {
    response.headers.set("access-control-allow-origin", origin);
    response.headers.set("access-control-expose-headers", "mcp-session-id, www-authenticate");
    response.headers.append("vary", "Origin");
    return response;
  } catch {
    // Immutable headers: copy the response.
    const copy = new Response(response.body, response);
    return withCors(copy, origin);
  }
}
