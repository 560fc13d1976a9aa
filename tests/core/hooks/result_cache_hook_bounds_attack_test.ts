import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineTool, toolOutput, ToolRouter } from "../../../mod.ts";
import { resultCacheHook } from "../../../src/core/hooks/mod.ts";

/**
 * The cache keeps whole results (the budget cuts after the hooks), up to `maxEntries` of them for
 * every user of the router together: bounded only by count, one user's calls of a read-only tool
 * with large answers (a trusted server's may send up to 64 MiB each) made the process hold
 * gigabytes for every other user.
 */
Deno.test("attack: one user's large cached results are bounded in bytes, not only in count", async () => {
  let runs = 0;
  const page = defineTool({
    name: "page",
    description: "A large page",
    input: z.object({ n: z.number() }),
    readOnly: true,
    run: ({ n }) => (runs++, `${n} ${"p".repeat(1_000_000)}`),
  });
  const router = new ToolRouter({
    functions: [page],
    hooks: [resultCacheHook({ maxBytes: 8 * 1024 * 1024 })],
  });
  const mallory = await router.expose({ functions: ["page"], userId: "mallory" });
  for (let n = 0; n < 40; n++) await mallory.call("page", { n });
  // The attack ran: 40 distinct large results, each run once.
  assertEquals(runs, 40);
  // The latest are still cached; the first went out to keep the cache within its bytes.
  await mallory.call("page", { n: 39 });
  assertEquals(runs, 40, "the last result is answered from the cache");
  await mallory.call("page", { n: 0 });
  assertEquals(runs, 41, "the first result was let go");
  await router.close();
});

Deno.test("a result larger than the whole cache is not kept; maxBytes must be positive", async () => {
  let runs = 0;
  const big = defineTool({
    name: "big",
    description: "A larger page",
    input: z.object({}),
    readOnly: true,
    run: () => (runs++, "b".repeat(100_000)),
  });
  const router = new ToolRouter({ functions: [big], hooks: [resultCacheHook({ maxBytes: 1024 })] });
  const tools = await router.expose({ functions: ["big"] });
  await tools.call("big", {});
  await tools.call("big", {});
  assertEquals(runs, 2);
  assertThrows(() => resultCacheHook({ maxBytes: 0 }), RangeError, "maxBytes");
  await router.close();
});

/**
 * The cache measures a result by its JSON before keeping it. A host tool's structured content
 * that JSON cannot write (a cycle, a BigInt) made the measure throw, and the hook failed a call
 * that succeeds without it ("its result is withheld"). Such a result is answered and not kept.
 */
Deno.test("a result JSON cannot measure is answered, not kept, and does not fail the call", async () => {
  const cyclic: Record<string, unknown> = { n: 1 };
  cyclic.self = cyclic;
  for (const structuredContent of [{ n: 1n } as Record<string, unknown>, cyclic]) {
    let runs = 0;
    const odd = defineTool({
      name: "odd",
      description: "Structured content JSON cannot write",
      input: z.object({}),
      readOnly: true,
      run:
        () => (runs++, toolOutput({ content: [{ type: "text", text: "hi" }], structuredContent })),
    });
    const router = new ToolRouter({ functions: [odd], hooks: [resultCacheHook()] });
    const tools = await router.expose({ functions: ["odd"] });
    const first = await tools.call("odd", {});
    const second = await tools.call("odd", {});
    assertEquals([first.isError, first.text], [false, "hi"]);
    assertEquals([second.isError, second.text], [false, "hi"]);
    // Both calls ran the tool (the cache's after step ran on each and kept nothing).
    assertEquals(runs, 2);
    await router.close();
  }
});
