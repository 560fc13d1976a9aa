import { assert, assertEquals, assertRejects } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import type { BuiltinSource, RoutedTool } from "../../../src/core/unstable_source.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { mountMcpServer } from "../../../src/core/mcp/mod.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store with a read-only `get` and a side-effecting `put`, both slow, counting overlap. */
function kvTools(delayMs: number) {
  const data = new Map<string, string>();
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let writeOverlap = 0;
  const tool = (name: string, readOnly: boolean, run: (args: Record<string, unknown>) => string) =>
    ({
      name,
      description: name,
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: readOnly },
      source: "builtin",
      origin: name,
      execute: async (args) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (!readOnly && inFlight > 1) writeOverlap++;
        log.push(`start ${name} ${args.key}`);
        await sleep(delayMs);
        const out = run(args);
        log.push(`end ${name} ${args.key}`);
        inFlight--;
        return out;
      },
    }) satisfies RoutedTool;
  const tools = [
    tool("get", true, (args) => data.get(String(args.key)) ?? "(none)"),
    tool("put", false, (args) => {
      data.set(String(args.key), String(args.value));
      return "stored";
    }),
  ];
  const builtins: BuiltinSource = {
    names: ["get", "put"],
    resolve: (names) => ({ tools: tools.filter((t) => names.includes(t.name)), missing: [] }),
  };
  return {
    builtins,
    log,
    stats: () => ({ maxInFlight, writeOverlap }),
  };
}

Deno.test("callAll() runs consecutive read-only calls together: five 200 ms reads well under 600 ms", async () => {
  const kv = kvTools(200);
  const toolSet = await new ToolRouter({ builtins: kv.builtins }).expose({ builtins: ["get"] });
  const started = performance.now();
  const results = await toolSet.callAll(
    Array.from(
      { length: 5 },
      (_, i) => ({ name: "get", arguments: { key: `k${i}` }, id: `c${i}` }),
    ),
  );
  const elapsed = performance.now() - started;
  assert(elapsed < 600, `five concurrent reads took ${elapsed.toFixed(0)} ms`);
  assertEquals(results.map((r) => r.id), ["c0", "c1", "c2", "c3", "c4"]);
  assertEquals(kv.stats().maxInFlight, 5);
});

Deno.test("callAll() keeps side effects in order: a write waits, runs alone, and a later read sees it", async () => {
  const kv = kvTools(30);
  const toolSet = await new ToolRouter({ builtins: kv.builtins }).expose({
    builtins: ["get", "put"],
  });
  const results = await toolSet.callAll([
    { name: "get", arguments: { key: "a" } },
    { name: "get", arguments: { key: "b" } },
    { name: "put", arguments: { key: "a", value: "1" } },
    { name: "get", arguments: { key: "a" } },
    { name: "put", arguments: { key: "a", value: "2" } },
    { name: "put", arguments: { key: "b", value: "3" } },
    { name: "get", arguments: { key: "a" } },
    { name: "get", arguments: { key: "b" } },
    { name: "nope", arguments: {} },
  ]);
  assertEquals(results.map((r) => r.text.slice(0, 12)), [
    "(none)",
    "(none)",
    "stored",
    "1",
    "stored",
    "stored",
    "2",
    "3",
    "Unknown tool",
  ]);
  assertEquals(kv.stats().writeOverlap, 0, "no write overlapped another call");
  assert(kv.stats().maxInFlight >= 2, "the reads did run together");
  // Every write starts after everything before it ended, and ends before anything after starts.
  const putA1 = kv.log.indexOf("start put a");
  assert(kv.log.indexOf("end get a") < putA1 && kv.log.indexOf("end get b") < putA1);
});

Deno.test("callAll() bounds concurrency (default 8, or the option) and checks its input", async () => {
  const kv = kvTools(20);
  const toolSet = await new ToolRouter({ builtins: kv.builtins }).expose({ builtins: ["get"] });
  const calls = Array.from({ length: 20 }, (_, i) => ({ name: "get", arguments: { key: `${i}` } }));
  assertEquals((await toolSet.callAll(calls)).length, 20);
  assertEquals(kv.stats().maxInFlight, 8);
  const limited = kvTools(20);
  const small = await new ToolRouter({ builtins: limited.builtins }).expose({ builtins: ["get"] });
  await small.callAll(calls, { concurrency: 3 });
  assertEquals(limited.stats().maxInFlight, 3);
  await assertRejects(() => small.callAll(calls, { concurrency: 0 }), RangeError, "concurrency");
  await assertRejects(
    () => small.callAll([{ arguments: {} } as unknown as { name: string; arguments: unknown }]),
    TypeError,
    '"name"',
  );
});

Deno.test("callAll() treats a mounted MCP tool annotated readOnlyHint as read-only, others not", async () => {
  let inFlight = 0;
  let max = 0;
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  const slow = async () => {
    inFlight++;
    max = Math.max(max, inFlight);
    await sleep(50);
    inFlight--;
    return { content: [{ type: "text" as const, text: "ok" }] };
  };
  server.registerTool("search", {
    inputSchema: z.object({ q: z.string() }),
    annotations: { readOnlyHint: true },
  }, slow);
  server.registerTool("edit", { inputSchema: z.object({ q: z.string() }) }, slow);
  const router = new ToolRouter();
  router.addMcpService(await mountMcpServer("docs", server));
  const toolSet = await router.expose({ mcpServices: ["docs"] });
  await toolSet.callAll([1, 2, 3].map((i) => ({ name: "docs_search", arguments: { q: `${i}` } })));
  assertEquals(max, 3);
  max = 0;
  await toolSet.callAll([1, 2, 3].map((i) => ({ name: "docs_edit", arguments: { q: `${i}` } })));
  assertEquals(max, 1);
  await router.close();
});
