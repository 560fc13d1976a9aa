import { assertEquals, assertMatch } from "@std/assert";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { initializeRequest } from "../../../_helpers/initialize_request.ts";
import { whoamiProvider as provider } from "./_whoami_provider.ts";

Deno.test("mcpHttpHandler answers 413 to a body over maxBodyBytes, declared or streamed, and reads no further", async () => {
  const handler = mcpHttpHandler({ tools: provider, stateless: true, maxBodyBytes: 1024 });
  try {
    // Declared too large.
    const declared = await handler(initializeRequest("http://127.0.0.1:8787/mcp", {
      "content-length": "5000000",
    }));
    assertEquals(declared.status, 413);
    assertMatch((await declared.json()).error.message, /over 1024 bytes.*maxBodyBytes/);
    // Streamed without a length: a client that never stops sending is cut at the bound.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(256).fill(32));
      },
    });
    const streamed = await handler(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: endless,
      }),
    );
    assertEquals(streamed.status, 413);
    await streamed.body?.cancel();
    // The handler pulled only about the bound (a few chunks past it at most), not forever.
    assertEquals(pulled > 4 && pulled < 16, true, `${pulled} chunks pulled`);
    // A small length beside a transfer-encoding declares nothing: read through the bound too.
    let smuggled = 0;
    const chunked = await handler(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "content-length": "10",
          "transfer-encoding": "chunked",
        },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            smuggled++;
            controller.enqueue(new Uint8Array(256).fill(32));
          },
        }),
      }),
    );
    assertEquals(chunked.status, 413);
    await chunked.body?.cancel();
    assertEquals(smuggled > 4 && smuggled < 16, true, `${smuggled} chunks pulled`);
    // A body within the bound is served as before.
    const within = await handler(initializeRequest("http://127.0.0.1:8787/mcp"));
    assertEquals(within.status, 200);
    await within.body?.cancel();
  } finally {
    await handler.close();
  }
});

Deno.test("mcpHttpHandler serves a body up to maxBodyBytes, past the SDK's own 4 MiB, and answers 400 to one that cannot be read", async () => {
  const handler = mcpHttpHandler({ tools: provider, stateless: true, jsonResponse: true });
  try {
    // 5 MiB of white space before the message: under the default 16 MiB, so served (the SDK's
    // transports, reading the body themselves, stop at 4 MiB).
    const padded = initializeRequest("http://127.0.0.1:8787/mcp");
    const large = await handler(
      new Request(padded, { body: " ".repeat(5 * 1024 * 1024) + await padded.text() }),
    );
    assertEquals(large.status, 200);
    assertEquals((await large.json()).result.serverInfo.name, "toolroute");
    // A body whose stream fails midway (a client gone): a parse error, not a thrown handler.
    const broken = await handler(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.error(new Error("connection reset"));
          },
        }),
      }),
    );
    assertEquals(broken.status, 400);
    assertEquals((await broken.json()).error.code, -32700);
  } finally {
    await handler.close();
  }
});
