/**
 * The MCP conformance suite (npm `@modelcontextprotocol/conformance@0.1.16`, client mode, run
 * under Deno because it needs Node 22) against `gateway_client.ts`, a driver on `McpGateway` +
 * `ToolRouter`. Every non-OAuth client scenario of 0.1.16 runs, one after the other so the
 * `sse-retry` timing is not disturbed (about 15 s together); then every `auth/*` scenario dated
 * 2025-03-26, 2025-06-18 or 2025-11-25 (16; one, whose metadata names another issuer, is refused
 * on purpose) and the three drafts, about 1.5 s each, through the
 * gateway's OAuth, and the two client-credentials extensions (a secret, a `private_key_jwt`). The
 * third extension, cross-app access (an identity provider's token exchanged for an ID-JAG), is not
 * run: the gateway does not do that grant. `deno task conformance:client` runs this file alone.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { fileURLToPath } from "node:url";

const DRIVER = fileURLToPath(new URL("./gateway_client.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** The non-OAuth client scenarios, with the number of successful checks each reports. */
const SCENARIOS: Record<string, number> = {
  "initialize": 1,
  "tools_call": 1,
  "elicitation-sep1034-client-defaults": 5,
  "sse-retry": 3,
};

/**
 * The `auth/*` client scenarios of the suite's dated spec versions (2025-03-26, 2025-06-18,
 * 2025-11-25) and its three drafts, with the number of successful checks each reports. The driver
 * plays the user: it opens the authorization URL the gateway reports and hands the redirect to
 * `McpOAuth.complete()`.
 */
// Each count is one more than before the gateway learned both protocol eras: its first request to
// a server is now `server/discover`, which the scenario's server checks for a valid bearer token
// like every other (auth/scope-retry-limit and auth/resource-mismatch stop before that request).
const AUTH_SCENARIOS: Record<string, number> = {
  "auth/metadata-default": 14,
  "auth/metadata-var1": 14,
  "auth/metadata-var2": 14,
  "auth/metadata-var3": 14,
  "auth/basic-cimd": 14,
  "auth/scope-from-www-authenticate": 15,
  "auth/scope-from-scopes-supported": 15,
  "auth/scope-omitted-when-undefined": 15,
  "auth/scope-step-up": 21,
  "auth/scope-retry-limit": 22,
  "auth/token-endpoint-auth-basic": 19,
  "auth/token-endpoint-auth-post": 19,
  "auth/token-endpoint-auth-none": 19,
  "auth/pre-registration": 14,
  "auth/2025-03-26-oauth-endpoint-fallback": 8,
  // Drafts.
  "auth/resource-mismatch": 3,
  // One more with SDK 2.x than with 1.x besides: one more check of the scenario passes.
  "auth/offline-access-scope": 14,
  "auth/offline-access-not-supported": 15,
  // Extensions: a machine client's client credentials, with a secret or a signed JWT.
  "auth/client-credentials-basic": 9,
  "auth/client-credentials-jwt": 9,
};

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO";
  errorMessage?: string;
}

/** The driver's command line: exactly the permissions it needs (loopback, the two variables). */
const command = [
  Deno.execPath(),
  "run",
  "--no-prompt",
  `--config=${CONFIG}`,
  "--allow-net=localhost,127.0.0.1,[::1]",
  "--allow-env=MCP_CONFORMANCE_SCENARIO,MCP_CONFORMANCE_CONTEXT",
  DRIVER,
].join(" ");

async function runScenario(
  scenario: string,
): Promise<{ code: number; checks: Check[]; stderr: string }> {
  const out = await Deno.makeTempDir({ prefix: "toolroute_conformance_client_" });
  try {
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        "--no-lock",
        "npm:@modelcontextprotocol/conformance@0.1.16",
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--timeout",
        "30000",
        "-o",
        out,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return { code, checks: await readChecks(out), stderr: await readStderr(out) };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** Every `checks.json` under the output folder (an `auth/x` scenario writes to `auth/x-…/`). */
async function readChecks(folder: string): Promise<Check[]> {
  const checks: Check[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) checks.push(...await readChecks(path));
    else if (entry.name === "checks.json") {
      checks.push(...JSON.parse(await Deno.readTextFile(path)));
    }
  }
  return checks;
}

/** The driver's stderr, as the suite saved it (`stderr.txt` under the output folder). */
async function readStderr(folder: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(folder)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) text += await readStderr(path);
    else if (entry.name === "stderr.txt") text += await Deno.readTextFile(path);
  }
  return text;
}

/**
 * Runs the scenarios, `parallel` at a time (each has its own servers on free ports), and asserts
 * each in its own step, in order.
 */
async function runScenarios(
  t: Deno.TestContext,
  scenarios: Record<string, number>,
  parallel = 1,
): Promise<void> {
  const names = Object.keys(scenarios);
  const runs = new Map<string, Promise<{ code: number; checks: Check[] }>>();
  let next = 0;
  const start = (): void => {
    if (next >= names.length) return;
    const name = names[next++];
    const run = runScenario(name);
    runs.set(name, run);
    run.finally(start).catch(() => {});
  };
  for (let i = 0; i < parallel; i++) start();
  for (const [scenario, successes] of Object.entries(scenarios)) {
    await t.step(scenario, async () => {
      while (!runs.has(scenario)) await new Promise((resolve) => setTimeout(resolve, 50));
      const { code, checks } = await runs.get(scenario)!;
      const problems = checks.filter((check) =>
        check.status === "FAILURE" || check.status === "WARNING"
      )
        .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
      assertEquals(problems, [], scenario);
      assertEquals(checks.filter((check) => check.status === "SUCCESS").length, successes);
      assert(code === 0, `the suite exited with ${code}`);
    });
  }
}

Deno.test("the MCP conformance suite passes every non-OAuth client scenario through McpGateway", async (t) => {
  await runScenarios(t, SCENARIOS);
});

// The 2025-03-26 back-compat scenario serves authorization server metadata at the MCP server's
// origin that names another issuer (`<origin>/oauth`). SDK 2.x checks the issuer against the URL
// it discovered the metadata at (RFC 8414 §3.3, against mix-up attacks) and refuses it; SDK 1.x went
// on. The gateway keeps the SDK's check: no client is registered there and no code or token asked.
Deno.test("the gateway refuses authorization server metadata naming another issuer (conformance auth/2025-03-26-oauth-metadata-backcompat)", async () => {
  const { checks, stderr } = await runScenario("auth/2025-03-26-oauth-metadata-backcompat");
  const status = (id: string) => checks.find((check) => check.id === id)?.status;
  // The attack ran: the gateway fetched the metadata at the MCP server's origin.
  assertEquals(status("authorization-server-metadata"), "SUCCESS");
  // Contained: refused for its issuer, nothing sent to that authorization server.
  assert(
    stderr.includes("Issuer mismatch in authorization server metadata (RFC 8414 §3.3)"),
    stderr,
  );
  for (const id of ["client-registration", "authorization-request", "token-request"]) {
    assert(status(id) !== "SUCCESS", `${id} happened`);
  }
});

Deno.test("the MCP conformance suite passes every dated, draft and client-credentials auth/* client scenario through McpGateway's OAuth", async (t) => {
  // Independent of timing, unlike sse-retry: three at a time.
  await runScenarios(t, AUTH_SCENARIOS, 3);
});
