import { assert, assertEquals } from "@std/assert";
import { acceptedContent, inputRequired, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startEraTestServer } from "../../_helpers/mcp_era_test_server.ts";

/**
 * `confirm`: answers `input_required` (a form elicitation naming the caller, read from its token)
 * until given; the result names the token itself.
 */
function confirmTool(server: McpServer, request: Request | undefined): void {
  const who = request?.headers.get("authorization") ?? "anonymous";
  // A name, not the token: an input request's text is redacted as a result's is.
  const name = who.replace("Bearer secret-of-", "");
  const schema = z.object({ word: z.string() });
  server.registerTool("confirm", { inputSchema: z.object({}) }, (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, "word", schema);
    if (answer === undefined) {
      return inputRequired({
        inputRequests: {
          word: inputRequired.elicit({ message: `word for ${name}`, requestedSchema: schema }),
        },
      });
    }
    return { content: [{ type: "text", text: `${who} said ${answer.word}` }] };
  });
}

Deno.test("an upstream's input_required reaches the calling user only, two users at the same moment", async () => {
  const server = startEraTestServer({ legacy: "reject", tools: confirmTool });
  const gateway = new McpGateway({ relayElicitation: true });
  for (const user of ["ana", "bo"]) {
    gateway.addUserServer(user, "crm", {
      url: server.url,
      headers: { Authorization: `Bearer secret-of-${user}` },
    });
  }
  const router = new ToolRouter({ gateway });
  try {
    const asked: Record<string, string[]> = { ana: [], bo: [] };
    // Both calls wait in their elicitation until the other one is asked too: they overlap.
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => release = resolve);
    const call = async (user: "ana" | "bo") => {
      const tools = await router.expose({ mcpServers: ["crm"], userId: user });
      return await tools.call("confirm", {}, {
        onElicitation: async (request) => {
          asked[user].push(request.message);
          if (asked.ana.length > 0 && asked.bo.length > 0) release();
          await bothAsked;
          return { action: "accept", content: { word: `yes-from-${user}` } };
        },
      });
    };
    const [ana, bo] = await Promise.all([call("ana"), call("bo")]);
    // The server's elicitation names the caller read from the token of the request that carried
    // the call: each user is asked by the request their own call made, never by the other's.
    assertEquals(asked, {
      ana: ["word for ana"],
      bo: ["word for bo"],
    });
    assertEquals(ana.text, "[redacted] said yes-from-ana");
    assertEquals(bo.text, "[redacted] said yes-from-bo");
    // The input_required round trips ran: each call was sent twice, in the modern era.
    assertEquals(server.methods.filter((m) => m === "tools/call").length, 4);
    assert(!server.methods.includes("initialize"));
    const carried = server.headersSeen.map((h) => h.get("authorization"));
    assert(carried.includes("Bearer secret-of-ana") && carried.includes("Bearer secret-of-bo"));
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("on a shared connection, each of two concurrent calls' input_required reaches its own caller", async () => {
  // A global server's connection carries several users' calls at once. A 2026-07-28 question comes
  // in the answer to the call that caused it, so it goes to that call, whatever else is in flight.
  const server = startEraTestServer({ legacy: "reject", tools: confirmTool });
  const gateway = new McpGateway({ relayElicitation: true, servers: { crm: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const asked: string[] = [];
    // Both calls wait in their question until the other one is asked too: they overlap.
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => release = resolve);
    const tools = await router.expose({ mcpServers: ["crm"] });
    const calls = ["ana", "bo"].map((user) =>
      tools.call("confirm", {}, {
        onElicitation: async (request) => {
          asked.push(`${user}: ${request.message}`);
          if (asked.length === 2) release();
          await bothAsked;
          return { action: "accept", content: { word: `yes-from-${user}` } };
        },
      })
    );
    const [ana, bo] = await Promise.all(calls);
    assertEquals(asked.sort(), ["ana: word for anonymous", "bo: word for anonymous"]);
    // Each answer went back in its own caller's call: neither got the other's.
    assertEquals(ana.text, "anonymous said yes-from-ana");
    assertEquals(bo.text, "anonymous said yes-from-bo");
    // Both rounds ran on the one shared connection: each call was sent twice.
    assertEquals(server.methods.filter((m) => m === "tools/call").length, 4);
  } finally {
    await router.close();
    await server.close();
  }
});
