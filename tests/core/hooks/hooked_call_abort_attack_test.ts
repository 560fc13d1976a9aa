// A call whose signal aborted before it started, or aborts while a `before` hook is still
// answering, is an aborted call: it must say so (`aborted`, what a host does not retry), not
// blame the hook (`tool_error`, what a retry policy may send again), and a call aborted before
// it started runs nothing of its own, no hook either (a hook may ask a person or write a log).
import { assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import type { ToolHook } from "../../../src/core/hooks/mod.ts";

function counted() {
  const seen = { runs: 0, hooks: 0 };
  const tool = defineTool({
    name: "echo",
    description: "Echoes text",
    input: z.object({ text: z.string() }),
    run: ({ text }) => {
      seen.runs++;
      return text;
    },
  });
  return { seen, tool };
}

Deno.test("attack: a call aborted before it starts reports aborted and runs no hook, sync or async", async () => {
  const { seen, tool } = counted();
  const hooks: ToolHook[] = [
    { before: () => void seen.hooks++ },
    {
      before: async () => {
        seen.hooks++;
        await Promise.resolve();
      },
    },
  ];
  for (const hook of hooks) {
    const router = new ToolRouter({ functions: [tool], hooks: [hook] });
    try {
      const toolSet = await router.expose({ functions: ["echo"] });
      const result = await toolSet.call("echo", { text: "hi" }, { signal: AbortSignal.abort() });
      assertEquals([result.isError, result.code], [true, "aborted"], result.text);
      assertMatch(result.text, /aborted before it started/);
    } finally {
      await router.close();
    }
  }
  // The attack ran: both calls were made and refused; nothing of theirs ran.
  assertEquals(seen, { runs: 0, hooks: 0 });
});

Deno.test("attack: a call aborted while a before hook is answering reports aborted, not the hook's failure", async () => {
  const { seen, tool } = counted();
  const controller = new AbortController();
  const hook: ToolHook = {
    before: () => {
      seen.hooks++;
      controller.abort();
      return new Promise(() => {});
    },
  };
  const router = new ToolRouter({ functions: [tool], hooks: [hook] });
  try {
    const toolSet = await router.expose({ functions: ["echo"] });
    const result = await toolSet.call("echo", { text: "hi" }, { signal: controller.signal });
    assertEquals([result.isError, result.code], [true, "aborted"], result.text);
    // The attack ran: the hook was answering when the call was aborted; the tool never ran.
    assertEquals(seen, { runs: 0, hooks: 1 });
  } finally {
    await router.close();
  }
});
