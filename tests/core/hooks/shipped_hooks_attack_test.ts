import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineMcpService, ToolError, ToolRouter } from "../../../mod.ts";
import { circuitBreakerHook, secretScannerHook } from "../../../src/core/hooks/mod.ts";

Deno.test("attack: a user who makes a shared server's calls time out does not open the circuit for others", async () => {
  let reached = 0;
  const shared = defineMcpService({
    name: "search",
    tools: {
      query: {
        description: "Searches",
        input: z.object({ q: z.string() }),
        run: async ({ q }, { signal }) => {
          reached++;
          if (q === "slow") {
            await new Promise((resolve) => signal.addEventListener("abort", resolve));
            throw new ToolError("timeout", "too slow");
          }
          return `found ${q}`;
        },
      },
    },
  });
  const router = new ToolRouter({
    mcpServices: [shared],
    hooks: [circuitBreakerHook({ failures: 2 })],
  });
  const mallory = await router.expose({ mcpServices: ["search"], userId: "mallory" });
  const alice = await router.expose({ mcpServices: ["search"], userId: "alice" });
  for (let i = 0; i < 3; i++) {
    await mallory.call("search_query", { q: "slow" }, { timeoutMs: 1 });
  }
  assertEquals(reached, 2, "mallory's two timeouts were real calls");
  const blocked = await mallory.call("search_query", { q: "x" });
  assertMatch(blocked.text, /circuit .* is open/, "mallory's own circuit is open");
  assertEquals(await alice.invoke("search_query", { q: "x" }), "found x");
});

Deno.test("attack: hostile results built to make the secret scanner backtrack are scanned in one pass", () => {
  const scanner = secretScannerHook();
  const hostile = [
    "-----BEGIN RSA PRIVATE KEY-----\n".repeat(20_000),
    "eyJ-".repeat(50_000),
    "sk-".repeat(50_000),
    `aws_secret_access_key${" ".repeat(200_000)}x`,
    "xoxb-".repeat(40_000),
  ];
  for (const text of hostile) {
    const started = performance.now();
    const out = scanner.after!(
      {} as never,
      { text, isError: false, tool: "t", content: [{ type: "text", text }] },
    ) as { text: string } | undefined;
    const elapsed = performance.now() - started;
    // A hang guard, not a benchmark: a quadratic scan of these takes minutes.
    assert(elapsed < 10_000, `${text.slice(0, 20)}… took ${elapsed} ms`);
    if (text.startsWith("-----BEGIN")) {
      assertEquals(out?.text, "[redacted private-key]", "an unterminated key hides the rest");
    }
  }
  const key = "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----";
  const out = scanner.after!(
    {} as never,
    {
      text: `a ${key} b ${key} c`,
      isError: false,
      tool: "t",
      content: [{ type: "text", text: "" }],
    },
  ) as { text: string };
  assertEquals(out.text, "a [redacted private-key] b [redacted private-key] c");
});
