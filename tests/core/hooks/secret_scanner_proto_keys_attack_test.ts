// The secret scanner now walks a result with the gateway's string walker (json_strings.ts). A
// tool answers with credentials under JSON names that an assignment takes for something else
// (`__proto__`, `constructor`), as names themselves, and 64 levels deep: each must still be
// redacted, the `__proto__` name must stay an own name (no prototype set), and the deepest
// part is withheld.
import { assert, assertEquals, assertFalse } from "@std/assert";
import { z } from "zod";
import { defineTool, toolOutput, ToolRouter } from "../../../mod.ts";
import { secretScannerHook } from "../../../src/core/hooks/mod.ts";

const TOKEN = "ghp_" + "Z9y8X7w6".repeat(5);

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { [`k${i}`]: value };
  return value;
}

Deno.test("attack: credentials under __proto__ and constructor names, as names, and past the scan's depth are redacted or withheld", async () => {
  let ran = 0;
  const structured = JSON.parse(
    JSON.stringify({
      __proto__placeholder: { token: TOKEN },
      constructor: { prototype: { token: TOKEN } },
      [TOKEN]: "a credential as a name",
      deep: nested(70, TOKEN),
    }).replace("__proto__placeholder", "__proto__"),
  );
  const leaky = defineTool({
    name: "leaky",
    description: "Answers with structured content",
    input: z.object({}),
    run: () => {
      ran++;
      return toolOutput({
        content: [{
          type: "text",
          text: "ok",
          _meta: JSON.parse(`{"__proto__": {"note": "${TOKEN}"}}`),
        }],
        structuredContent: structured,
      } as never);
    },
  });
  const router = new ToolRouter({ functions: [leaky], hooks: [secretScannerHook()] });
  const tools = await router.expose({ functions: ["leaky"] });
  const result = await tools.call("leaky", {});
  // The attack ran, and the hook replaced something.
  assertEquals(ran, 1);
  assertFalse(result.isError, result.text);
  const out = result.structuredContent as Record<string, unknown>;
  const meta = (result.content[0] as { _meta?: Record<string, unknown> })._meta!;
  const all = JSON.stringify([out, meta, result.text]);
  assertFalse(all.includes(TOKEN), all);
  // `__proto__` stayed an own name of a plain object, its value redacted.
  assert(Object.hasOwn(out, "__proto__"), "the __proto__ name was dropped");
  assertEquals(Object.getPrototypeOf(out), Object.prototype);
  assertEquals((out["__proto__"] as { token: string }).token, "[redacted github-token]");
  assert(Object.hasOwn(meta, "__proto__"));
  assertEquals(Object.getPrototypeOf(meta), Object.prototype);
  assert(Object.hasOwn(out, "[redacted github-token]"));
  assert(all.includes("[redacted: nested too deep to scan]"), all);
});
