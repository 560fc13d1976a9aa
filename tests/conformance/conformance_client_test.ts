/**
 * The MCP conformance suite (npm `@modelcontextprotocol/conformance@0.1.16`, client mode, run
 * under Deno because it needs Node 22) against `gateway_client.ts`, a driver on `McpGateway` +
 * `ToolRouter`. Every non-OAuth client scenario of 0.1.16 runs (`conformance list --client`:
 * the others are `auth/*`), one after the other so the `sse-retry` timing is not disturbed;
 * together they take about 15 s. `deno task conformance:client` runs this file alone.
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

async function runScenario(scenario: string): Promise<{ code: number; checks: Check[] }> {
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
    const checks: Check[] = [];
    for await (const entry of Deno.readDir(out)) {
      checks.push(...JSON.parse(await Deno.readTextFile(`${out}/${entry.name}/checks.json`)));
    }
    return { code, checks };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

Deno.test("the MCP conformance suite passes every non-OAuth client scenario through McpGateway", async (t) => {
  for (const [scenario, successes] of Object.entries(SCENARIOS)) {
    await t.step(scenario, async () => {
      const { code, checks } = await runScenario(scenario);
      const problems = checks.filter((check) =>
        check.status === "FAILURE" || check.status === "WARNING"
      )
        .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
      assertEquals(problems, [], scenario);
      assertEquals(checks.filter((check) => check.status === "SUCCESS").length, successes);
      assert(code === 0, `the suite exited with ${code}`);
    });
  }
});
