/**
 * The MCP conformance suite (npm `@modelcontextprotocol/conformance@0.1.16`, server mode, run
 * under Deno because it needs Node 22) against `toolroute serve --http` serving
 * `examples/conformance/toolroute.json` with exactly the flags `toolroute flags` prints: the
 * suite's tool fixtures are a third-party stdio server (`examples/conformance/fixture_server.ts`)
 * that `serve` routes every call to through its gateway.
 *
 * Every lifecycle, tools, content, logging, elicitation, resources, prompts, completion and
 * DNS-rebinding scenario must pass (the fixture server's resources and prompts, passed on by
 * serve); the others need features toolroute does not serve (resource subscriptions, sampling,
 * SSE polling), see docs/conformance.md, which lists each. The second test runs the suite's
 * 2026-07-28 requirements (`0.2.0-alpha.12 --requirements 2026-07-28`), which a client of the
 * modern era gets without `initialize` or a session.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { dirname } from "@std/path";
import { fromFileUrl } from "./_file_url.ts";
import { exactFlags, startHttpServe } from "./_serve_process.ts";
import { startTokenProxy } from "./_token_proxy.ts";

const CONFIG = fromFileUrl(
  new URL("../../../examples/conformance/toolroute.json", import.meta.url),
);

/** The scenarios that must pass, with the number of successful checks each reports. */
const MUST_PASS: Record<string, number> = {
  "server-initialize": 1,
  "ping": 1,
  "logging-set-level": 1,
  "tools-list": 1,
  "tools-call-simple-text": 1,
  "tools-call-image": 1,
  "tools-call-audio": 1,
  "tools-call-embedded-resource": 1,
  "tools-call-mixed-content": 1,
  "tools-call-with-logging": 1,
  "tools-call-error": 1,
  "tools-call-with-progress": 1,
  "tools-call-elicitation": 1,
  "elicitation-sep1034-defaults": 5,
  "elicitation-sep1330-enums": 5,
  "json-schema-2020-12": 4,
  "server-sse-multiple-streams": 2,
  "dns-rebinding-protection": 2,
  // The fixture server's resources, prompts and completion, passed on by serve.
  "resources-list": 1,
  "resources-read-text": 1,
  "resources-read-binary": 1,
  "resources-templates-read": 1,
  "prompts-list": 1,
  "prompts-get-simple": 1,
  "prompts-get-with-args": 1,
  "prompts-get-embedded-resource": 1,
  "prompts-get-with-image": 1,
  "completion-complete": 1,
};

/** The scenarios out of scope, each explained in docs/conformance.md. */
const OUT_OF_SCOPE = new Set([
  "tools-call-sampling",
  "resources-subscribe",
  "resources-unsubscribe",
  "server-sse-polling",
]);

/** Runs one version of the suite against `serve`; returns each scenario's passed and failed checks. */
async function runSuite(
  suite: string[],
): Promise<{ results: Record<string, { passed: number; failed: string[] }>; stderr: string }> {
  const flags = await exactFlags(["--config", CONFIG, "--http", "127.0.0.1:0"]);
  // The fixture server runs as `deno run …`: the serving process finds `deno` on its PATH.
  const path = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
  await using serve = await startHttpServe(flags, ["--config", CONFIG], { PATH: path });
  // The suite sends no Authorization header: a proxy adds the token (Host and Origin unchanged).
  await using proxy = await startTokenProxy(serve.url, serve.token);
  const out = await Deno.makeTempDir({ prefix: "toolroute_conformance_" });
  const results: Record<string, { passed: number; failed: string[] }> = {};
  try {
    await new Deno.Command(Deno.execPath(), {
      // No config and no lock file: the suite is a tool of this test, not a dependency.
      args: ["run", "-A", "--no-config", "--no-lock", ...suite, "--url", proxy.url, "-o", out],
      cwd: out,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    for await (const entry of Deno.readDir(out)) {
      const scenario = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      const checks = JSON.parse(await Deno.readTextFile(`${out}/${entry.name}/checks.json`)) as {
        status: string;
        errorMessage?: string;
      }[];
      results[scenario] = {
        passed: checks.filter((check) => check.status === "SUCCESS").length,
        failed: checks.filter((check) => check.status === "FAILURE")
          .map((check) => check.errorMessage ?? "failed"),
      };
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
  assertEquals(await serve.stop(), 0);
  return { results, stderr: serve.stderr() };
}

/** Asserts the passing scenarios and that every other one is listed (a new one gets a decision). */
function checkResults(
  { results, stderr }: Awaited<ReturnType<typeof runSuite>>,
  mustPass: Record<string, number>,
  notPassing: ReadonlySet<string>,
): void {
  for (const [scenario, passed] of Object.entries(mustPass)) {
    assertEquals(results[scenario], { passed, failed: [] }, `${scenario}\n${stderr}`);
  }
  const unlisted = Object.keys(results).filter((s) => !(s in mustPass) && !notPassing.has(s));
  assertEquals(unlisted, [], JSON.stringify(results, null, 1));
}

Deno.test("the MCP conformance suite passes its lifecycle, tools and DNS-rebinding scenarios", async () => {
  const run = await runSuite([
    "npm:@modelcontextprotocol/conformance@0.1.16",
    "server",
    "--suite",
    "all",
  ]);
  checkResults(run, MUST_PASS, OUT_OF_SCOPE);
});

/** The 2026-07-28 requirements (0.2.0-alpha.12) that pass, with their numbers of checks. */
const MUST_PASS_2026: Record<string, number> = {
  "tools-list": 4,
  "tools-call-simple-text": 2,
  "tools-call-image": 2,
  "tools-call-audio": 2,
  "tools-call-embedded-resource": 2,
  "tools-call-mixed-content": 2,
  "tools-call-error": 2,
  "tools-call-with-progress": 2,
  "server-sse-multiple-streams": 1,
  "resources-list": 2,
  "resources-read-text": 2,
  "resources-read-binary": 2,
  "resources-templates-read": 2,
  "prompts-list": 2,
  "prompts-get-simple": 2,
  "prompts-get-with-args": 2,
  "prompts-get-embedded-resource": 2,
  "prompts-get-with-image": 2,
  "completion-complete": 2,
  "caching": 8,
  "sep-2164-resource-not-found": 4,
  "dns-rebinding-protection": 2,
  "input-required-result-missing-input-response": 1,
  "input-required-result-unsupported-methods": 2,
  "input-required-result-ignore-extra-params": 2,
  "input-required-result-validate-input": 1,
  "http-header-validation": 14,
};

/** The 2026-07-28 scenarios that do not pass, each explained in docs/conformance.md. */
const NOT_PASSING_2026 = new Set([
  "server-stateless",
  "input-required-result-basic-elicitation",
  "input-required-result-basic-sampling",
  "input-required-result-basic-list-roots",
  "input-required-result-request-state",
  "input-required-result-multiple-input-requests",
  "input-required-result-multi-round",
  "input-required-result-non-tool-request",
  "input-required-result-result-type",
  "input-required-result-tampered-state",
  "input-required-result-capability-check",
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
  "json-schema-2020-12",
  "http-custom-header-server-validation",
]);

Deno.test("the 2026-07-28 conformance requirements: serve passes what applies to a tools gateway", async () => {
  const run = await runSuite([
    "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12",
    "server",
    "--requirements",
    "2026-07-28",
  ]);
  checkResults(run, MUST_PASS_2026, NOT_PASSING_2026);
});
