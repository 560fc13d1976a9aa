import { assertEquals, assertMatch, assertRejects } from "@std/assert";
import {
  GuardedFetch,
  RequestNotDeliveredError,
} from "../../../../../src/core/mcp/gateway/http/guarded_fetch.ts";

const fakeFetch = (respond: (url: string, init?: RequestInit) => Response) =>
  ((input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(respond(String(input), init))) as typeof fetch;

Deno.test("GuardedFetch refuses redirects with a clear error and forces redirect: manual", async () => {
  let redirect: RequestRedirect | undefined;
  const guard = new GuardedFetch({
    maxBodyBytes: 1000,
    fetch: fakeFetch((_url, init) => {
      redirect = init?.redirect;
      return new Response(null, {
        status: 302,
        headers: { location: "https://elsewhere.example/mcp?token=secret" },
      });
    }),
  });
  const error = await assertRejects(() => guard.fetch("https://api.example/mcp"), Error);
  // The server read the request: not one to send again as undelivered.
  assertEquals(error instanceof RequestNotDeliveredError, false);
  assertEquals(redirect, "manual");
  assertMatch(error.message, /redirect \(HTTP 302 to https:\/\/elsewhere\.example\/mcp\)/);
  assertMatch(error.message, /not followed: configure the final URL instead/);
  assertEquals(error.message.includes("secret"), false);
});

Deno.test("GuardedFetch checks allowedHosts on every request", async () => {
  const guard = new GuardedFetch({
    maxBodyBytes: 1000,
    allowedHosts: ["*.example.com"],
    fetch: fakeFetch(() => new Response("ok")),
  });
  assertEquals(await (await guard.fetch("https://api.example.com/mcp")).text(), "ok");
  await assertRejects(() => guard.fetch("https://example.org/mcp"), TypeError, "allowedHosts");
});

Deno.test("GuardedFetch cuts a body over maxBodyBytes and tells which requests it carried", async () => {
  const ends: unknown[] = [];
  const guard = new GuardedFetch({
    maxBodyBytes: 10,
    fetch: fakeFetch(() => new Response("x".repeat(100))),
    onBodyCut: (ids) => ends.push(ids),
  });
  const response = await guard.fetch("https://api.example/mcp", {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call" }),
  });
  await assertRejects(() => response.text(), Error, "exceeded 10 bytes");
  assertEquals(ends, [[7]]);
  // A body read to its end within the limit is the SDK's to report (per request).
  const whole = await new GuardedFetch({
    maxBodyBytes: 1000,
    fetch: fakeFetch(() => new Response("id: 1\ndata: \n\n")),
    onBodyCut: (ids) => ends.push(ids),
  }).fetch("https://api.example/mcp", { method: "POST", body: '{"id":"a","method":"ping"}' });
  assertEquals(await whole.text(), "id: 1\ndata: \n\n");
  assertEquals(ends, [[7]]);
});

Deno.test("GuardedFetch leaves no way of reading a watched body around the limit", async () => {
  const guard = new GuardedFetch({
    maxBodyBytes: 10,
    fetch: fakeFetch(() =>
      new Response("x".repeat(100), { status: 500, headers: { "content-type": "text/plain" } })
    ),
  });
  const get = () => guard.fetch("https://api.example/mcp");
  // An error status's text (the SDK's error message) and a body drained as JSON: cut.
  await assertRejects(async () => await (await get()).text(), Error, "exceeded 10 bytes");
  await assertRejects(async () => await (await get()).json(), Error, "exceeded 10 bytes");
  const response = await get();
  assertEquals(response.status, 500);
  assertEquals(response.headers.get("content-type"), "text/plain");
  // Any other reader finds the runtime's own body locked by the watch.
  for (
    const read of [() => response.arrayBuffer(), () => response.bytes(), () => response.blob()]
  ) {
    await assertRejects(read, TypeError);
  }
  await assertRejects(() => new Response(response.body).text(), Error, "exceeded 10 bytes");
});

Deno.test("GuardedFetch close() cancels open bodies and refuses new requests", async () => {
  let cancelled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull: () => new Promise(() => {}),
    cancel: () => {
      cancelled = true;
    },
  });
  const guard = new GuardedFetch({
    maxBodyBytes: 1000,
    fetch: fakeFetch(() => new Response(endless)),
  });
  const response = await guard.fetch("https://api.example/mcp");
  const reading = response.body!.getReader().read();
  await guard.close();
  assertEquals((await reading).done, true);
  assertEquals(cancelled, true);
  await assertRejects(() => guard.fetch("https://api.example/mcp"), RequestNotDeliveredError);
});

Deno.test("GuardedFetch marks connection failures as not delivered", async () => {
  const guard = new GuardedFetch({
    maxBodyBytes: 1000,
    fetch: (() =>
      Promise.reject(
        new TypeError("fetch failed", {
          cause: new Error("client error (Connect): tcp connect error: Connection refused"),
        }),
      )) as typeof fetch,
  });
  await assertRejects(
    () => guard.fetch("https://api.example/mcp"),
    RequestNotDeliveredError,
    "Cannot connect to https://api.example",
  );
});

Deno.test("GuardedFetch returns a whole JSON answer within the limit as given, and watches every other body", async () => {
  const json = '{"jsonrpc":"2.0","id":1,"result":{}}';
  const told: unknown[][] = [];
  let answer = (): Response =>
    new Response(json, {
      headers: { "content-type": "application/json", "content-length": String(json.length) },
    });
  let given: Response | undefined;
  let givenBody: ReadableStream | null = null;
  const guard = new GuardedFetch({
    maxBodyBytes: 1000,
    fetch: fakeFetch(() => {
      given = answer();
      givenBody = given.body;
      return given;
    }),
    onWholeJson: (ids) => void told.push([...ids()]),
  });
  const post = { method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' };
  const whole = await guard.fetch("https://api.example/mcp", post);
  assertEquals(whole === given, true);
  assertEquals(told, [[1]]);
  assertEquals(await whole.text(), json);

  // Without a declared length, or not JSON: read or streamed under the watch.
  // Over the limit by its declared length: refused before it is read.
  answer = () =>
    new Response(json, {
      headers: { "content-type": "application/json", "content-length": "5000" },
    });
  await assertRejects(() => guard.fetch("https://api.example/mcp", post), Error, "exceeded 1000");
  const kinds: Record<string, string>[] = [
    { "content-type": "application/json" },
    { "content-type": "text/event-stream", "content-length": String(json.length) },
  ];
  for (const headers of kinds) {
    answer = () => new Response(json, { headers });
    const watched = await guard.fetch("https://api.example/mcp", post);
    assertEquals(watched.body === givenBody, false, JSON.stringify(headers));
    await watched.body?.cancel();
  }
  // The JSON answer without a declared length was read here whole: told too, the stream not.
  assertEquals(told, [[1], [1]]);
});
