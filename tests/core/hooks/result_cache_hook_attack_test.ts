import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import { resultCacheHook } from "../../../src/core/hooks/mod.ts";

const MARKER = "CONVERSATION-A-ONLY-4e1d";

Deno.test("attack: a cached read_result page answers a handle in a set that may not read it", async () => {
  let runs = 0;
  const report = defineTool({
    name: "report",
    description: "A long report",
    input: z.object({}),
    run: () => {
      runs++;
      return `${MARKER} ${"r".repeat(4000)}`;
    },
  });
  const router = new ToolRouter({
    functions: [report],
    hooks: [resultCacheHook()],
    resultBudget: { tokens: 100 },
  });
  // Two conversations of the same user: a handle belongs to the set (the scope) that made it.
  const a = await router.expose({ functions: ["report"], userId: "ana" });
  const b = await router.expose({ functions: ["report"], userId: "ana" });
  const cut = await a.call("report", {});
  assertEquals(runs, 1);
  assertMatch(cut.resultHandle ?? "", /^res_r/);
  const page = await a.call("read_result", { handle: cut.resultHandle });
  assert(page.text.startsWith(MARKER), "set A reads its own result");
  // Set B cuts a result of its own, so it lists read_result; with A's handle it must read
  // nothing. The cache key is the user, the tool and the arguments: the same as A's read.
  const own = await b.call("report", {});
  assertEquals(runs, 2);
  assert(own.resultHandle !== undefined && own.resultHandle !== cut.resultHandle);
  assert(b.names.includes("read_result"));
  const stolen = await b.call("read_result", { handle: cut.resultHandle });
  // The attack ran: B's call reached the router with A's handle (before, the cache answered with
  // A's page).
  assertEquals((stolen as { tool?: string }).tool, "read_result");
  assert(stolen.isError, stolen.text);
  assert(!stolen.text.includes(MARKER), stolen.text);
  assertEquals(stolen.code, "unknown_tool");
  await router.close();
});
