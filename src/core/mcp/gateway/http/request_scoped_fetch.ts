/**
 * Wraps a fetch so that a connection kept across requests works on edge runtimes: it drops an
 * abort signal that belongs to an earlier request.
 *
 * The SDK's HTTP client transports pass one `AbortController`'s signal, made when the connection
 * opened, to every request. On Cloudflare Workers (workerd) that signal is bound to the request
 * that first used it: in a later request even reading `signal.aborted` throws `Cannot perform I/O
 * on behalf of a different request`, and so does a fetch given that signal. Such a request is
 * sent without the signal instead; the runtime cancels it with its own request. Elsewhere (Deno,
 * browsers, Node.js) reading a signal never throws and the fetch is called unchanged.
 *
 * @param base The fetch to wrap. Default: the global `fetch`, looked up on each call.
 */
export function requestScopedFetch(base?: typeof fetch): typeof fetch {
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call = base ?? fetch;
    const signal = init?.signal;
    if (signal === undefined || signal === null || readable(signal)) return call(input, init);
    const { signal: _otherRequest, ...rest } = init as RequestInit;
    return call(input, rest);
  };
}

function readable(signal: AbortSignal): boolean {
  try {
    void signal.aborted;
    return true;
  } catch {
    return false;
  }
}
