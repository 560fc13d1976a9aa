import { assertEquals, assertStrictEquals } from "@std/assert";
import { requestScopedFetch } from "../../../../../src/core/mcp/gateway/http/request_scoped_fetch.ts";

function recorder(): { fetch: typeof fetch; inits: (RequestInit | undefined)[] } {
  const inits: (RequestInit | undefined)[] = [];
  return {
    inits,
    fetch: (_input, init) => {
      inits.push(init);
      return Promise.resolve(new Response("ok"));
    },
  };
}

/** What workerd's signal looks like in a later request: reading it throws. */
function signalOfAnotherRequest(): AbortSignal {
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", {
    get() {
      throw new Error("Cannot perform I/O on behalf of a different request");
    },
  });
  return signal;
}

Deno.test("requestScopedFetch() passes a usable signal and the request unchanged", async () => {
  const { fetch, inits } = recorder();
  const signal = new AbortController().signal;
  const init: RequestInit = { method: "POST", body: "{}", signal, headers: { a: "1" } };
  await (await requestScopedFetch(fetch)("http://127.0.0.1/mcp", init)).text();
  assertStrictEquals(inits[0], init);
  await (await requestScopedFetch(fetch)("http://127.0.0.1/mcp")).text();
  assertEquals(inits[1], undefined);
});

Deno.test("requestScopedFetch() drops a signal that belongs to another request", async () => {
  const { fetch, inits } = recorder();
  const init: RequestInit = { method: "POST", body: "{}", signal: signalOfAnotherRequest() };
  await (await requestScopedFetch(fetch)("http://127.0.0.1/mcp", init)).text();
  assertEquals(inits[0], { method: "POST", body: "{}" });
  assertEquals("signal" in (inits[0] ?? {}), false);
});

Deno.test("requestScopedFetch() keeps aborting requests whose signal is usable", async () => {
  const controller = new AbortController();
  controller.abort();
  const scoped = requestScopedFetch((_input, init) =>
    init?.signal?.aborted
      ? Promise.reject(new DOMException("aborted", "AbortError"))
      : Promise.resolve(new Response("ok"))
  );
  const failure = await scoped("http://127.0.0.1/mcp", { signal: controller.signal }).catch((
    error,
  ) => error);
  assertEquals((failure as Error).name, "AbortError");
});
