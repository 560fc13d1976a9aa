/**
 * A config file's `mcpServers.ID.sandbox`: taken for a stdio server, refused for a remote one.
 *
 * @module
 */
import { assertEquals, assertThrows } from "@std/assert";
import { parseMcpConfig } from "../../../src/deno/mcp/load_mcp_config.ts";

Deno.test("parseMcpConfig() takes a stdio server's sandbox as written", () => {
  const sandbox = { roots: ["/home/me/notes"], network: { allow: ["api.github.com"] } };
  const servers = parseMcpConfig({
    mcpServers: {
      files: { command: "npx", args: ["-y", "server"], sandbox },
      plain: { command: "./trusted", sandbox: "none" },
    },
  });
  assertEquals((servers.files as { sandbox?: unknown }).sandbox, sandbox);
  assertEquals((servers.plain as { sandbox?: unknown }).sandbox, "none");
});

Deno.test("parseMcpConfig() refuses a sandbox on a remote server", () => {
  assertThrows(
    () =>
      parseMcpConfig({ mcpServers: { remote: { url: "https://x.example/mcp", sandbox: "none" } } }),
    TypeError,
    '"sandbox" does not apply to a remote server',
  );
});
