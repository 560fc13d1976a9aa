/**
 * The MCP conformance suite's client driver, built on `McpGateway` + `ToolRouter`:
 *
 * `deno run -A npm:@modelcontextprotocol/conformance@0.1.16 client --command "<deno> run
 * --no-prompt --allow-net=localhost,127.0.0.1 --allow-env=MCP_CONFORMANCE_SCENARIO,MCP_CONFORMANCE_CONTEXT
 * tests/conformance/gateway_client.ts" --scenario <name>`
 *
 * The suite appends its test server's URL to the command and names the scenario in
 * `MCP_CONFORMANCE_SCENARIO`. The driver exposes the server's tools through a router, as a host
 * would, and calls what the scenario expects. It exits 0 when every call succeeded and by itself
 * (no `Deno.exit` on success: a connection left open would hang it, and the suite would time out).
 *
 * @module
 */

import {
  type McpElicitationRequest,
  type McpElicitationResult,
  McpGateway,
  ToolRouter,
} from "../../mod.ts";

const url = Deno.args.at(-1);
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
if (url === undefined || !URL.canParse(url)) {
  console.error("Usage: gateway_client.ts <server url> (with MCP_CONFORMANCE_SCENARIO set)");
  Deno.exit(2);
}

/** Answers form elicitation by accepting; the gateway fills in the schema's defaults. */
function acceptWithDefaults(_request: McpElicitationRequest): McpElicitationResult {
  return { action: "accept", content: {} };
}

/** What each scenario calls: tool name and arguments. */
const CALLS: Record<string, Array<[string, Record<string, unknown>]>> = {
  initialize: [],
  tools_call: [["add_numbers", { a: 5, b: 3 }]],
  "elicitation-sep1034-client-defaults": [["test_client_elicitation_defaults", {}]],
  "sse-retry": [["test_reconnection", {}]],
};

let failed = false;
{
  await using gateway = new McpGateway({
    servers: { conformance: { url } },
    onElicitation: acceptWithDefaults,
    requestTimeoutMs: 20_000,
  });
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["conformance"] });
  for (const missing of toolSet.missing) {
    console.error(`Server not available: ${missing.reason}`);
    failed = true;
  }
  const names = toolSet.tools.map((tool) => tool.function.name);
  console.log(`scenario ${scenario}: tools ${JSON.stringify(names)}`);
  const calls = CALLS[scenario] ??
    // An unknown scenario: call every tool that takes no required argument.
    toolSet.toMcp().filter((tool) => (tool.inputSchema.required ?? []).length === 0)
      .map((tool): [string, Record<string, unknown>] => [tool.name, {}]);
  for (const [name, args] of calls) {
    const result = await toolSet.call(name, args);
    console.log(`${name} -> ${result.isError ? `error ${result.code}: ` : ""}${result.text}`);
    if (result.isError) failed = true;
  }
}
if (failed) Deno.exitCode = 1;
