export const LOOPBACK_HOSTNAMES: readonly string[] = Object.freeze([
  "localhost",
  "127.0.0.1",
  "[::1]",
]);

/** An allowlist entry, parsed once: a host name (or scheme and host name) and a port, `""` for any. */
export interface AllowRule {
  protocol?: string;
  hostname: string;
  port: string;
}

/** A `Host` allowlist's rules; an entry that is no host matches nothing. */
export function hostRules(allowed: readonly string[]): readonly AllowRule[] {
  return allowed.flatMap((entry) => {
    const rule = URL.parse(`http://${entry}`);
    if (rule === null) return [];
    // `new URL("http://h:80").port` is "" (the default port): read an explicit ":80" back.
    const port = rule.port === "" && /:80$/.test(entry) ? "80" : rule.port;
    return [{ hostname: rule.hostname, port }];
  });
}

/** An `Origin` allowlist's rules; an entry that is no URL matches nothing. */
export function originRules(allowed: readonly string[]): readonly AllowRule[] {
  return allowed.flatMap((entry) => {
    const rule = URL.parse(entry);
    return rule === null
      ? []
      : [{ protocol: rule.protocol, hostname: rule.hostname, port: rule.port }];
  });
}

/**
 * Whether a request's `Host` (or, without one, its URL's host) is allowed. An entry without a
 * port allows any port; an entry with a port allows only that port.
 */
export function hostAllowed(request: Request, rules: readonly AllowRule[]): boolean {
  const header = request.headers.get("host") ?? URL.parse(request.url)?.host;
  if (!header) return false;
  const candidate = URL.parse(`http://${header}`);
  if (candidate === null) return false;
  const port = candidate.port || (request.url.startsWith("https:") ? "443" : "80");
  return rules.some((rule) =>
    rule.hostname === candidate.hostname && (rule.port === "" || rule.port === port)
  );
}

/**
 * Whether a request's `Origin` is allowed. Requests without `Origin` (non-browser clients) pass;
 * `Origin: null` does not. An entry without a port allows any port of that scheme and host.
 */
export function originAllowed(request: Request, rules: readonly AllowRule[]): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const candidate = URL.parse(origin);
  if (candidate === null || candidate.origin === "null") return false;
  return rules.some((rule) =>
    rule.protocol === candidate.protocol && rule.hostname === candidate.hostname &&
    (rule.port === "" || rule.port === candidate.port)
  );
}

/** A JSON-RPC error response (code -32000 unless given), as the SDK's transport answers. */
export function jsonRpcErrorResponse(
  status: number,
  message: string,
  options: { headers?: Record<string, string>; code?: number } = {},
): Response {
  const { headers = {}, code = -32000 } = options;
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}
