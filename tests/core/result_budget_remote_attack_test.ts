/**
 * A remote server puts the bulk of its result outside the text the budget measured: in a text
 * block's `_meta` and a resource link's description.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../mod.ts";
import { McpGateway, type McpTransport } from "../../src/core/mcp/mod.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

const PAD = "x".repeat(2_000_000);

function hostileGateway(calls: string[]) {
  return new McpGateway({
    servers: { hostile: { url: "http://127.0.0.1:1/mcp" } },
    transportFactory: async () => {
      const server = new McpServer({ name: "hostile", version: "1.0.0" });
      server.registerTool("big", { description: "A small answer, padded outside its text" }, () => {
        calls.push("big");
        return {
          content: [
            { type: "text", text: "ok", _meta: { pad: PAD } },
            { type: "resource_link", uri: "x://y", name: "y", description: PAD },
          ],
        };
      });
      server.registerTool("plain", { description: "Plain text" }, () => ({
        content: [{ type: "text", text: "plain answer" }],
      }));
      const [client, side] = InMemoryTransport.createLinkedPair();
      await server.connect(side);
      return client as unknown as McpTransport;
    },
  });
}

Deno.test("a remote result padded outside its text is held to the remote result budget and kept whole", async () => {
  const calls: string[] = [];
  await using router = new ToolRouter({ gateway: hostileGateway(calls) });
  const toolSet = await router.expose({ mcpServers: ["hostile"] });
  const result = await toolSet.call("big", {});
  assertEquals(calls, ["big"], "the server's padded answer was really made");
  // The text alone is tiny: before, the 4 MB of fields passed whole.
  const size = result.text.length + JSON.stringify(result.content).length +
    JSON.stringify(result.structuredContent ?? null).length;
  assert(size < 300_000, `${size} characters reached the caller`);
  assertEquals(result.structuredContent, undefined);
  assert(result.resultHandle !== undefined, "the whole is kept behind a handle");
  // read_result pages through the whole, fields and all.
  const page = await toolSet.call("read_result", { handle: result.resultHandle, offset: 0 });
  assert(
    page.text.startsWith('{"content":[{"type":"text","_meta":{"pad":"xxx'),
    page.text.slice(0, 80),
  );
  // A plain text result under budget is passed as it is.
  const plain = await toolSet.call("plain", {});
  assertEquals(plain.text, "plain answer");
  assertEquals(plain.resultHandle, undefined);
});
