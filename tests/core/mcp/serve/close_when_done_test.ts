import { assertEquals, assertRejects } from "@std/assert";
import { closeWhenDone } from "../../../../src/core/mcp/serve/_close_when_done.ts";

let done = 0;
const count = () => {
  done++;
  return Promise.resolve();
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

Deno.test("closeWhenDone runs done once the body is read to its end, and keeps the response's status and headers", async () => {
  done = 0;
  const response = closeWhenDone(
    new Response("abc", { status: 201, headers: { x: "y" } }),
    count,
  );
  assertEquals([response.status, response.headers.get("x"), done], [201, "y", 0]);
  assertEquals(await response.text(), "abc");
  await settle();
  assertEquals(done, 1);
});

Deno.test("closeWhenDone runs done when the reader cancels, and cancels the body", async () => {
  done = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(new Uint8Array([1])),
    cancel: () => void (cancelled = true),
  });
  const reader = closeWhenDone(new Response(body), count).body!.getReader();
  await reader.read();
  await reader.cancel("gone");
  await settle();
  assertEquals([done, cancelled], [1, true]);
});

Deno.test("closeWhenDone passes a failing body's error on and runs done", async () => {
  done = 0;
  const body = new ReadableStream({ start: (controller) => controller.error(new Error("boom")) });
  const response = closeWhenDone(new Response(body), count);
  await assertRejects(() => response.text());
  await settle();
  assertEquals(done, 1);
});
