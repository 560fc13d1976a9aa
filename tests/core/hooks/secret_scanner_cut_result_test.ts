import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import { secretScannerHook } from "../../../src/core/hooks/mod.ts";

const TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

/**
 * A result over its budget keeps head and tail and the whole behind a `read_result` handle, and
 * `read_result` does not go through hooks: a credential in the cut-out middle must still have
 * been redacted, since the budget cuts what the hooks returned.
 */
Deno.test("a credential in the middle of a cut result is redacted in every read_result page", async () => {
  const dump = defineTool({
    name: "dump",
    description: "A long log",
    input: z.object({}),
    run: () => `${"a".repeat(6_000)}\nGITHUB_TOKEN=${TOKEN}\n${"z".repeat(6_000)}`,
  });
  const router = new ToolRouter({
    functions: [dump],
    hooks: [secretScannerHook()],
    resultBudget: { tokens: 100 },
  });
  const tools = await router.expose({ functions: ["dump"], userId: "ana" });
  const cut = await tools.call("dump", {});
  // The attack ran: the result was cut, its middle (with the token) kept behind a handle.
  assert(cut.resultHandle !== undefined);
  assert(!cut.text.includes("GITHUB_TOKEN"), "the middle is not in the cut result");
  let whole = "";
  let offset: number | undefined = 0;
  for (let pages = 0; offset !== undefined && pages < 100; pages++) {
    const page = await tools.call("read_result", { handle: cut.resultHandle, offset });
    assertEquals(page.isError, false, page.text);
    whole += page.content[0].type === "text" ? page.content[0].text : "";
    const next = page.content[1]?.type === "text" ? page.content[1].text : "";
    const match = next.match(/offset (\d+)/);
    offset = match === null ? undefined : Number(match[1]);
  }
  assert(whole.startsWith("a".repeat(6_000)) && whole.endsWith("z".repeat(6_000)), "read whole");
  assertMatch(whole, /GITHUB_TOKEN=\[redacted [^\]]+\]/);
  assert(!whole.includes(TOKEN), "the stored whole holds no credential");
  await router.close();
});
