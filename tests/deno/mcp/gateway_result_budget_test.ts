import { assert, assertEquals, assertFalse, assertMatch } from "@std/assert";
import { z } from "zod";
import { type ToolCallResult, ToolRouter, type ToolSet } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

/**
 * Text with one-, two-, three- and four-byte characters, so byte offsets are really tested (no
 * control characters: the gateway escapes those in every remote result, before any budget).
 */
function mixedText(length: number): string {
  const parts = ["plain ascii line\n", "äöü café ", "日本語の文 ", "🦕🎉 ", "\t"];
  let text = "";
  for (let index = 0; text.length < length; index++) text += `${index}:${parts[index % 5]}`;
  text = text.slice(0, length - 1);
  return (/[\ud800-\udbff]$/.test(text) ? text.slice(0, -1) + "?" : text) + "!";
}

const FIVE_MB = mixedText(5 * 1024 * 1024);

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function readAll(tools: ToolSet, handle: string): Promise<string> {
  const parts: string[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const page: ToolCallResult = await tools.call("read_result", {
      handle,
      offset,
      limit: 1024 * 1024,
    });
    assertFalse(page.isError, page.text);
    parts.push((page.content[0] as { text: string }).text);
    offset = (page.structuredContent as { nextOffset?: number }).nextOffset;
  }
  return parts.join("");
}

async function bigServer() {
  return await startMcpTestServer({
    tools: (server) =>
      server.registerTool("dump", {
        description: "A 5 MB result of mixed text",
        inputSchema: z.object({}),
      }, () => ({ content: [{ type: "text", text: FIVE_MB }] })),
  });
}

Deno.test("a 5 MB remote result is cut once, by the router's budget, and read_result returns its exact bytes", async () => {
  await using server = { ...(await bigServer()), [Symbol.asyncDispose]: () => server.close() };
  await using router = new ToolRouter({
    gateway: new McpGateway({ servers: { files: { url: server.url } } }),
    resultBudget: { tokens: 2000 },
  });
  const tools = await router.expose({ mcpServers: ["files"] });
  const cut = await tools.call("dump", {});
  assertFalse(cut.isError, cut.text);
  assert(cut.text.length <= 8000, `${cut.text.length} characters`);
  // The gateway's own default (100,000 characters) did not cut it first: the note names the whole
  // 5 MB result, and the handle reads back every byte the server sent.
  const bytes = new TextEncoder().encode(FIVE_MB).length;
  assert(bytes > 5 * 1024 * 1024);
  assertMatch(cut.text, new RegExp(`The whole result is ${bytes} bytes and is kept`));
  assertEquals(await sha256(await readAll(tools, cut.resultHandle!)), await sha256(FIVE_MB));
});

Deno.test("the gateway's maxResultChars is the router's budget of remote results where the router gives none", async () => {
  await using server = { ...(await bigServer()), [Symbol.asyncDispose]: () => server.close() };
  await using router = new ToolRouter({
    gateway: new McpGateway({ servers: { files: { url: server.url } }, maxResultChars: 3000 }),
  });
  const tools = await router.expose({ mcpServers: ["files"] });
  assertFalse(tools.names.includes("read_result"));
  const cut = await tools.call("dump", {});
  assert(cut.text.length <= 3000, `${cut.text.length} characters`);
  assert(cut.resultHandle !== undefined, "a cut remote result is kept, not lost");
  assert(tools.names.includes("read_result"));
  assertEquals(await sha256(await readAll(tools, cut.resultHandle!)), await sha256(FIVE_MB));
});

Deno.test("the router's own budget comes before the gateway's maxResultChars", async () => {
  await using server = { ...(await bigServer()), [Symbol.asyncDispose]: () => server.close() };
  await using router = new ToolRouter({
    gateway: new McpGateway({ servers: { files: { url: server.url } }, maxResultChars: 3000 }),
    resultBudget: { sources: { files: 5000 } },
  });
  const tools = await router.expose({ mcpServers: ["files"] });
  const cut = await tools.call("dump", {});
  assert(cut.text.length > 3000 && cut.text.length <= 20_000, `${cut.text.length} characters`);
  assert(cut.resultHandle !== undefined);
});
