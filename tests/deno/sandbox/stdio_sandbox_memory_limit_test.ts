/**
 * A sandboxed stdio server's memory limit, as a user meets it: a Deno server under a modest
 * `limits.memoryMiB` must start, and a server killed at its limit must leave the reason in
 * `gateway.status()` (the "the reason in status()"), not only in the failed call.
 *
 * @module
 */
import { assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { fixtureReadOnly, hostileServer } from "./_hostile_world.ts";

Deno.test({
  name: "a Deno stdio server starts under limits.memoryMiB 512 and allocates within it",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using gateway = createDenoGateway({
      servers: {
        small: hostileServer({ readOnly: fixtureReadOnly(), limits: { memoryMiB: 512 } }),
      },
    });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["small"] });
    // Before: the server died at start ("Failed to reserve virtual memory for CodeRange"): the
    // limit is also each process's RLIMIT_DATA, which counts what V8 reserves at start.
    assertEquals(toolSet.missing, [], JSON.stringify(gateway.status()));
    const outcome = JSON.parse(await toolSet.invoke("memory_hog", { mib: 64 }));
    assertEquals(outcome.allocatedMiB, 64);
  },
});

Deno.test({
  name: "a stdio server killed at its memory limit leaves the reason in status()",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using gateway = createDenoGateway({
      servers: { hog: hostileServer({ readOnly: fixtureReadOnly(), limits: { memoryMiB: 1024 } }) },
    });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["hog"] });
    assertEquals(toolSet.missing, []);
    const result = await toolSet.call("memory_hog", { mib: 1536 });
    if (!result.isError) {
      // The allocation failed inside instead (the limit held without a kill): nothing to report.
      assertMatch(result.text, /allocation failed|memory/i);
      return;
    }
    assertEquals(result.code, "upstream_unavailable");
    // The exit's reason may be recorded just after the call ended: wait for the server's exit to
    // be seen (its state leaves "ready"), bounded.
    let status = gateway.status().find((entry) => entry.id === "hog")!;
    for (let i = 0; i < 50 && !/memory/i.test(status.lastError ?? ""); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = gateway.status().find((entry) => entry.id === "hog")!;
    }
    // Before: "The connection was lost", the reason only in the call's text. (The
    // call's own text may still say only "closed the connection": the exit can come after it.)
    assertMatch(status.lastError ?? "", /memory/i, JSON.stringify(status));
  },
});
