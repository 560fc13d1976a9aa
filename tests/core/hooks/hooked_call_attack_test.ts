import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolError, ToolRouter } from "../../../mod.ts";
import { resultCacheHook, retryHook, secretScannerHook } from "../../../src/core/hooks/mod.ts";

const TOKEN = "ghp_" + "Z1x2C3v4".repeat(5);

/** A read-only tool that fails transiently first, then answers with a credential. */
function flaky(counter: { runs: number }) {
  return defineTool({
    name: "env",
    description: "Reads the environment",
    input: z.object({}),
    readOnly: true,
    run: () => {
      if (++counter.runs === 1) throw new ToolError("upstream_unavailable", "try again");
      return `GITHUB_TOKEN=${TOKEN}`;
    },
  });
}

Deno.test("attack: a result that comes from a later hook's retry passes the router's secret scanner", async () => {
  const counter = { runs: 0 };
  // The natural setup: the router scans every result, a request adds a retry.
  const router = new ToolRouter({ functions: [flaky(counter)], hooks: [secretScannerHook()] });
  const tools = await router.expose({
    functions: ["env"],
    hooks: [retryHook({ backoffMs: 1 })],
  });
  const result = await tools.call("env", {});
  // The attack ran: the first attempt failed, the retry ran the tool again and its answer is the
  // call's result (before, it reached the caller with the token: the scanner had only seen the
  // failure).
  assertEquals(counter.runs, 2);
  assert(!result.isError, result.text);
  // Contained: a retry's result goes through the hooks before the one that asked for it.
  assert(!result.text.includes(TOKEN), result.text);
  assert(!JSON.stringify(result.content).includes(TOKEN));
  assertEquals(result.text, "GITHUB_TOKEN=[redacted github-token]");
  await router.close();
});

Deno.test("a retry's result is what an earlier cache keeps, and the cache answers the repeat", async () => {
  const counter = { runs: 0 };
  const router = new ToolRouter({
    functions: [flaky(counter)],
    hooks: [resultCacheHook(), secretScannerHook(), retryHook({ backoffMs: 1 })],
  });
  const tools = await router.expose({ functions: ["env"], userId: "ana" });
  const first = await tools.call("env", {});
  const again = await tools.call("env", {});
  assertEquals(counter.runs, 2, "the repeat came from the cache");
  assertEquals(first.text, "GITHUB_TOKEN=[redacted github-token]");
  assertEquals(again.text, "GITHUB_TOKEN=[redacted github-token]");
  await router.close();
});
