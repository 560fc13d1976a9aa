/**
 * The remote MCP gateway part of the demo: two MCP servers on 127.0.0.1 (a global "docs" server
 * shared by everyone, and Alice's own "crm" server that needs her token), plus a "billing" server
 * that is down. One request for Alice and one for Bob show a per-user tool shadowing a global one,
 * per-user isolation, and a down server reported without breaking the request.
 *
 * Needs `allow-net` for 127.0.0.1 only.
 */
import { z } from "zod";
import { defineTool, ToolRouter } from "../mod.ts";
import { McpGateway, mcpHttpHandler } from "../src/core/mcp/mod.ts";
import { table } from "./_table.ts";

/** Serves function tools over MCP Streamable HTTP on a free loopback port. */
function serve(
  tools: ReturnType<typeof defineTool>[],
  tokens?: Record<string, string>,
): { url: string; close(): Promise<void> } {
  const router = new ToolRouter({ functions: tools });
  const names = tools.map((tool) => tool.name);
  const handler = mcpHttpHandler({
    // With tokens, each request's user comes from its bearer token.
    tools: ({ userId }) => router.expose({ functions: names, userId }),
    tokens,
  });
  const http = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handler);
  return {
    url: `http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`,
    async close() {
      await handler.close();
      await http.shutdown();
      await router.close();
    },
  };
}

/** Runs the gateway demo, printing its tables; stops its servers. */
export async function demoGateway(print: (line: string) => void): Promise<void> {
  const docs = serve([
    defineTool({
      name: "search_docs",
      description: "Searches the public documentation",
      input: z.object({ query: z.string() }),
      run: ({ query }) => `3 pages match "${query}"`,
    }),
    defineTool({
      name: "lookup_customer",
      description: "Public company directory",
      input: z.object({ name: z.string() }),
      run: ({ name }) => `${name}: listed in the public directory`,
    }),
  ]);
  const crm = serve([
    defineTool({
      name: "lookup_customer",
      description: "Alice's CRM: customer records",
      input: z.object({ name: z.string() }),
      run: ({ name }, ctx) => `${name}: 2 open deals (CRM of ${ctx.userId}, from her token)`,
    }),
  ], { "alice-crm-token": "alice" });
  const down = serve([]);
  await down.close();

  try {
    await using gateway = new McpGateway({
      servers: { docs: { url: docs.url }, billing: { url: down.url } },
      allowedHosts: ["127.0.0.1"],
      connectTimeoutMs: 2000,
    });
    gateway.addUserServer("alice", "crm", {
      url: crm.url,
      headers: { Authorization: "Bearer alice-crm-token" },
    });
    const router = new ToolRouter({ gateway });
    const rows: string[][] = [];
    for (const userId of ["alice", "bob"]) {
      const toolSet = await router.expose({ mcpServers: ["docs", "crm", "billing"], userId });
      print(`${userId}: exposed ${toolSet.names.join(", ")}`);
      for (const shadow of toolSet.shadowed) {
        print(`  "${shadow.name}" from ${shadow.winner} hides ${shadow.hidden.join(", ")}`);
      }
      for (const missing of toolSet.missing) {
        print(`  not exposed: ${missing.name} (${missing.reason})`);
      }
      for (
        const [tool, args] of [["lookup_customer", { name: "ACME" }], ["search_docs", {
          query: "invoices",
        }]] as const
      ) {
        const result = await toolSet.call(tool, args);
        rows.push([
          userId,
          tool,
          result.source ?? "-",
          result.isError ? "error" : "ok",
          result.text,
        ]);
      }
    }
    print("");
    table(print, ["user", "call", "winning source", "status", "text for the model"], rows);
    print("");
    table(
      print,
      ["server", "user", "state", "tools", "last error"],
      gateway.status().map((s) => [
        s.id,
        s.userId ?? "(global)",
        s.state,
        String(s.tools),
        s.lastError ?? "",
      ]),
    );
  } finally {
    await docs.close();
    await crm.close();
  }
}

if (import.meta.main) await demoGateway(console.log);
