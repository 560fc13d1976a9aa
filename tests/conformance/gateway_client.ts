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

import { ToolRouter } from "../../mod.ts";
import {
  type McpElicitationRequest,
  type McpElicitationResult,
  McpGateway,
  McpOAuth,
} from "../../src/core/mcp/mod.ts";

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

/** The redirect URI the OAuth scenarios' authorization server sends the user agent back to. */
const REDIRECT_URL = "http://localhost:3000/callback";
/** The Client ID Metadata Document URL the suite's authorization server accepts. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** The user of the OAuth scenarios: their server is a per-user server. */
const USER = "conformance-user";
/** How often one step (exposing, or one call) may ask the user to authorize. */
const MAX_AUTHORIZATIONS = 4;

/** The suite's context (pre-registered client credentials, a private key). */
function context(): {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
} {
  const raw = Deno.env.get("MCP_CONFORMANCE_CONTEXT");
  return raw ? JSON.parse(raw) : {};
}

/**
 * Plays the user: opens the authorization URL (the suite's server consents at once and
 * redirects), then hands the redirect to the gateway as a host's redirect endpoint would.
 */
async function authorize(oauth: McpOAuth, text: string): Promise<boolean> {
  // The model-visible text only says a sign-in is needed; the URL is the host's to hand over.
  const waiting = oauth.waiting(USER)[0]?.authorizationUrl;
  if (!/Authorization required/.test(text) || waiting === undefined) return false;
  const response = await fetch(waiting, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) throw new Error(`The authorization URL answered ${response.status}`);
  await oauth.complete(USER, "conformance", location);
  return true;
}

let failed = false;
{
  // A machine client (client credentials) connects a global server; a user's account, a user's.
  const machine = scenario.startsWith("auth/client-credentials");
  const perUser = scenario.startsWith("auth/") && !machine;
  const { client_id, client_secret, private_key_pem, signing_algorithm } = context();
  const oauth = new McpOAuth({
    redirectUrl: REDIRECT_URL,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientName: "toolroute-conformance",
    ...(client_id === undefined ? {} : {
      clients: {
        conformance: {
          clientId: client_id,
          clientSecret: client_secret,
          ...(machine ? { grant: "client_credentials" as const } : {}),
          ...(private_key_pem === undefined
            ? {}
            : { privateKey: private_key_pem, signingAlgorithm: signing_algorithm }),
        },
      },
    }),
  });
  await using gateway = new McpGateway({
    servers: perUser ? {} : { conformance: { url } },
    onElicitation: acceptWithDefaults,
    requestTimeoutMs: 20_000,
    oauth,
  });
  if (perUser) gateway.addUserServer(USER, "conformance", { url });
  const router = new ToolRouter({ gateway });
  const userId = perUser ? USER : undefined;
  let toolSet = await router.expose({ mcpServers: ["conformance"], userId });
  for (let round = 0; round < MAX_AUTHORIZATIONS && toolSet.missing.length > 0; round++) {
    if (!await authorize(oauth, toolSet.missing[0].reason)) break;
    toolSet = await router.expose({ mcpServers: ["conformance"], userId });
  }
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
    let result = await toolSet.call(name, args);
    for (let round = 0; round < MAX_AUTHORIZATIONS && result.isError; round++) {
      if (!await authorize(oauth, result.text)) break;
      result = await toolSet.call(name, args);
    }
    console.log(`${name} -> ${result.isError ? `error ${result.code}: ` : ""}${result.text}`);
    if (result.isError) failed = true;
  }
}
if (failed) Deno.exitCode = 1;
