// A hook's answer is the hook's own code to the last property read: a getter that throws (on a
// deny, on rewritten arguments, on a result's fields, before or after the call, at once or after
// a promise) is the hook failing. The call must end in an isError result, never a rejection of
// `toolSet.call` for the host to catch.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import type { ToolHook } from "../../../src/core/hooks/mod.ts";

/** An object whose one field throws when read (typed as any answer a hook may give). */
function throwing(counter: { reads: number }, field: string): never {
  return Object.defineProperty({}, field, {
    enumerable: true,
    get() {
      counter.reads++;
      throw new Error(`getter ${field}`);
    },
  }) as never;
}

Deno.test("attack: a hook answer whose getters throw fails the call as a result, before and after it runs", async () => {
  const counter = { reads: 0 };
  let runs = 0;
  const echo = defineTool({
    name: "echo",
    description: "Echoes text",
    input: z.object({ text: z.string() }),
    run: ({ text }) => {
      runs++;
      return text;
    },
  });
  const before: [string, ToolHook][] = [
    ["deny", { before: () => throwing(counter, "deny") }],
    ["args", { before: () => throwing(counter, "args") }],
    ["a rewritten argument", { before: () => ({ args: throwing(counter, "text") }) }],
    ["result", { before: () => throwing(counter, "result") }],
    ["a result's text", { before: () => ({ result: throwing(counter, "text") }) }],
    ["a later deny", { before: () => Promise.resolve(throwing(counter, "deny")) }],
  ];
  const after: [string, ToolHook][] = [
    ["a replacement's text", { after: () => throwing(counter, "text") }],
    ["a later replacement's text", {
      after: () => Promise.resolve(throwing(counter, "text")),
    }],
  ];
  for (const [what, hook] of [...before, ...after]) {
    const router = new ToolRouter({ functions: [echo], hooks: [hook] });
    const toolSet = await router.expose({ functions: ["echo"] });
    const reads = counter.reads;
    const ranBefore = runs;
    try {
      const result = await toolSet.call("echo", { text: "hi" }).catch((error) => error);
      // The attack ran: the hook's getter was read.
      assert(counter.reads > reads, `${what}: the getter was never read`);
      assert(!(result instanceof Error), `${what}: the call rejected: ${result}`);
      assertEquals([result.isError, result.code], [true, "tool_error"], `${what}: ${result.text}`);
      assertMatch(result.text, /^Hook "hook 1" failed (before|after) the call to "echo"/);
      // A hook that failed before the call kept it from running; one after withheld its result.
      assertEquals(runs - ranBefore, before.some(([name]) => name === what) ? 0 : 1, what);
    } finally {
      await router.close();
    }
  }
});
