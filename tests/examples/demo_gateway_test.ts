import { assert, assertMatch } from "@std/assert";
import { demoGateway } from "../../examples/demo_gateway.ts";

Deno.test({
  name: "demoGateway() shows shadowing, isolation and a down server, and cleans up",
  permissions: { net: ["127.0.0.1"] },
  async fn() {
    const lines: string[] = [];
    await demoGateway((line) => lines.push(line));
    const text = lines.join("\n");
    assertMatch(text, /"lookup_customer" from user_mcp hides global_mcp/);
    assertMatch(text, /alice \| lookup_customer \| user_mcp\s+\| ok\s+\| ACME: 2 open deals/);
    assertMatch(text, /bob\s+\| lookup_customer \| global_mcp/);
    assertMatch(text, /not exposed: crm \(no MCP server has this id\)/);
    assertMatch(text, /not exposed: billing \(the global MCP server is unavailable/);
    assert(lines.some((line) => /^billing\s+\| \(global\) \| failed/.test(line)));
  },
});
