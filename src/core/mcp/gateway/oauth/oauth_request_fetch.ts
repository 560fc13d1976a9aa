import { checkAllowedHost } from "../../mcp_server_config.ts";
import { canonicalHost, isLoopbackHost, isPrivateHost } from "./private_host.ts";

/** Most bytes of a metadata, registration or token response. */
const MAX_AUTH_RESPONSE_BYTES = 1024 * 1024;

/**
 * The fetch of one server's authorization requests (metadata, registration, token): URLs follow
 * the gateway's `allowedHosts`; `http:` only to loopback; without an allowlist, no private or
 * loopback address other than the MCP server's own host (a server cannot point the gateway at an
 * internal one); redirects to another origin are refused, bodies are bounded. Names that resolve to private
 * addresses cannot be seen from web-standard code: set `allowedHosts` where that matters.
 * `fetch` is the one to wrap (default: the global one); `serverUrl` the MCP server's, whose own
 * host is trusted even when private. The result is the fetch to pass to the SDK's `auth()`.
 */
export function oauthRequestFetch(
  options: {
    fetch?: typeof fetch;
    allowedHosts?: readonly string[];
    serverUrl: URL;
    signal?: AbortSignal;
    timeoutMs?: number;
  },
): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    checkOAuthUrl(url, options);
    options.signal?.throwIfAborted();
    // The gateway's close, and a deadline of the request's own: the SDK gives these requests
    // none, and one held open by its server would hold that user's next connects behind it.
    const ends = [init?.signal, options.signal].filter((each) => each != null);
    if (options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs)) {
      ends.push(AbortSignal.timeout(options.timeoutMs));
    }
    const signal = ends.length <= 1 ? ends[0] : AbortSignal.any(ends);
    const response = await (options.fetch ?? fetch)(input, { ...init, redirect: "manual", signal });
    if ((response.status >= 300 && response.status < 400) || response.type === "opaqueredirect") {
      // The SDK follows a redirect within the origin itself, through this fetch again.
      if (sameOrigin(response.headers.get("location"), url)) return bounded(response, url, signal);
      await response.body?.cancel();
      throw new Error(
        `The authorization request to ${url.origin}${url.pathname} answered with a redirect (HTTP ${response.status}), which is not followed`,
      );
    }
    const length = Number(response.headers.get("content-length") ?? "0");
    if (length > MAX_AUTH_RESPONSE_BYTES) {
      await response.body?.cancel();
      throw new Error(tooLarge(url));
    }
    return bounded(response, url, signal);
  };
}

function tooLarge(url: URL): string {
  return `The authorization response of ${url.origin} is larger than 1 MiB`;
}

/**
 * The response with its body cut at the bound as it is read: a body of undeclared length (or one
 * chunked beside a `content-length`, which then declares nothing) is otherwise read whole by the
 * SDK's `json()`, however long. `signal` (the request's, the gateway's close, the deadline)
 * cancels a body still being read, whatever fetch was given (one that dropped the signal too).
 * Not std's `LimitedBytesTransformStream`: its error reaches the user through the SDK's sign-in
 * failure, and names neither the server nor the bound.
 */
function bounded(response: Response, url: URL, signal: AbortSignal | undefined): Response {
  if (response.body === null) return response;
  let bytes = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes > MAX_AUTH_RESPONSE_BYTES) controller.error(new Error(tooLarge(url)));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit, { signal }), response);
}

/** Throws when an authorization URL may not be fetched (see {@linkcode oauthRequestFetch}). */
function checkOAuthUrl(
  url: URL,
  options: { allowedHosts?: readonly string[]; serverUrl: URL },
): void {
  const { allowedHosts, serverUrl } = options;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url))) {
    throw new Error(
      `Refusing authorization URL ${url.origin}: only https (or http to loopback) is allowed`,
    );
  }
  if (allowedHosts !== undefined) {
    try {
      checkAllowedHost(url, allowedHosts);
    } catch (error) {
      // Not a TypeError: the SDK reads a TypeError in discovery as a CORS failure and goes on.
      throw new Error(`Refusing authorization URL: ${(error as Error).message}`);
    }
    return;
  }
  // Compared on the parser's canonical host: `127.1`, `0177.0.0.1` and `localhost.` are not
  // another host than the server's own, nor a public one.
  if (isPrivateHost(url) && canonicalHost(url) !== canonicalHost(serverUrl)) {
    throw new Error(
      `Refusing authorization URL ${url.origin}: private and loopback addresses need "allowedHosts"`,
    );
  }
}

function sameOrigin(location: string | null, url: URL): boolean {
  return location !== null && URL.parse(location, url)?.origin === url.origin;
}
