import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../mod.ts";
import { secretScannerHook } from "../../src/core/hooks/mod.ts";

const TOKEN = "ghp_" + "Q7w8E9r0".repeat(5);

Deno.test("attack: the model reads a cut result in pages that split a credential, past the secret scanner", async () => {
  let ran = 0;
  const dump = defineTool({
    name: "dump",
    description: "Dumps the environment",
    input: z.object({}),
    run: () => {
      ran++;
      return `${"a".repeat(2000)} GITHUB_TOKEN=${TOKEN} ${"b".repeat(2000)}`;
    },
  });
  const router = new ToolRouter({
    functions: [dump],
    hooks: [secretScannerHook()],
    resultBudget: { tokens: 200 },
  });
  const tools = await router.expose({ functions: ["dump"], userId: "mallory" });
  const cut = await tools.call("dump", {});
  assertEquals(ran, 1);
  assertMatch(cut.resultHandle ?? "", /^res_r/);
  // The model asks for a page that ends in the middle of where the token was, and the next one
  // from there: each half alone would not look like a token to the scanner.
  const at = 2000 + " GITHUB_TOKEN=".length + 10;
  const first = await tools.call("read_result", { handle: cut.resultHandle, limit: at });
  const second = await tools.call("read_result", { handle: cut.resultHandle, offset: at });
  // The attack ran: both pages were read at the offsets the model chose.
  assert(!first.isError && !second.isError, first.text + second.text);
  assertEquals((first.structuredContent as { bytes: number }).bytes, at);
  assertEquals((second.structuredContent as { offset: number }).offset, at);
  // Held: the budget cuts after the hooks, so the stored whole is the scanned text.
  const whole = (first.content[0] as { text: string }).text +
    (second.content[0] as { text: string }).text;
  assert(!whole.includes(TOKEN.slice(0, 14)) && !whole.includes(TOKEN.slice(14)), whole);
  assert(whole.includes("GITHUB_TOKEN=[redacted github-token]"));
  await router.close();
});
