import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { Redactor } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import type { McpServerConfig } from "../../../../../src/core/mcp/mcp_server_config.ts";

const http = (headers: Record<string, string>): McpServerConfig =>
  ({ url: "https://example.test/mcp", headers }) as McpServerConfig;

Deno.test("attack: unchanged OAuth tokens are not expanded again on every use", () => {
  const tokens = ["a".repeat(64) + "/+=", "b".repeat(64)];
  let reads = 0;
  const r = new Redactor(http({}), () => (reads++, [...tokens]));
  const first = r.secrets();
  assertStrictEquals(r.secrets(), first, "the same tokens gave a freshly expanded list");
  assertEquals(reads, 2);
  tokens.push("c".repeat(64));
  assert(r.secrets().includes("c".repeat(64)));
});
