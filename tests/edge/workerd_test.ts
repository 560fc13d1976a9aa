/**
 * The edge proof: `examples/edge_worker.ts`, bundled by `deno task bundle:edge`, runs in workerd
 * (Cloudflare's runtime, from npm, driven by miniflare) and serves its allowlisted tools over
 * real HTTP, reaching a remote MCP server on 127.0.0.1 from inside the worker.
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "@std/assert";
import { Miniflare } from "miniflare";
import { Client, StreamableHTTPClientTransport } from "../../src/core/mcp/mcp_sdk.ts";
import { startMcpTestServer, type TestServer } from "../_helpers/mcp_test_server.ts";
import {
  buildEdgeWorker,
  bundle,
  type EdgeBundle,
  gzipSize,
  moduleGraph,
  nodeImports,
  npmExternals,
} from "./_edge_bundle.ts";
import { forecastTools } from "./_forecast_tools.ts";
import { codeOfInputs } from "./_source_map.ts";
import { createOAuthWorld, type OAuthWorld } from "../_helpers/oauth_world.ts";
import { REQUESTS, searchCatalogSet, searchNames } from "./_tool_search_catalog.ts";

/**
 * The example worker bundles the SDK's client (the gateway) and its serving entry for both eras
 * (`mcpHttpHandler`): each SDK package ships its own copy of the protocol core, so most of the
 * bundle is the SDK's. The budget is the last measure plus about 1 %; raising it needs a reason in
 * the commit that raises it (history: `git log -L` on this constant). A worker with function tools
 * only stays far below (its own test). Lowered from 217 KB to 207 KB (measured 204.9 KB): the
 * bundle had carried the cfworker engine three times (toolroute's copy and the SDK client's and
 * server's defaults; now `cfWorkerJsonSchemaValidator` is the SDK's own, so twice), and
 * @opentelemetry/api as CommonJS, which no bundler tree-shakes (now its ES module build, through
 * the `module` condition esbuild and webpack add by default). Raised to 210 KB (measured 207.3 KB)
 * by what the gateway gained beside that: parked connections, a task's input relay, the
 * deep-schema page check and the stale-verdict retry (toolroute's own code 60.7 → 61.8 KB).
 * Raised to 213 KB (measured 210.8 KB) by two fixes of the 2026-07-28 era: a call answers its own
 * `input_required` rounds, so a question reaches its own caller on a shared connection (+0.8 KB),
 * and `serve` signs the answers a client holds between rounds and checks their shape (+0.3 KB).
 */
const BUNDLE_BUDGET_BYTES = 213 * 1024;
/** The target for toolroute's own code: reported, not enforced (the budget is). */
const OWN_CODE_TARGET_BYTES = 15 * 1024;
/**
 * Catches a dependency counted as toolroute's code (zod alone is ~25 KB), not growth: the last
 * measure plus about 3 %. Raised from 62 KB (measured 62.5 KB) by parked 2025-era sessions, and
 * from 64 KB (measured 65.1 KB) by the same two 2026-07-28 fixes as the budget.
 */
const OWN_CODE_CEILING_BYTES = 67 * 1024;
/** Must not be newer than the pinned workerd (its version is its date). */
const COMPATIBILITY_DATE = "2026-07-01";

let built: Promise<EdgeBundle> | undefined;
/** Bundles once for every test of this file. */
function edgeWorker(): Promise<EdgeBundle> {
  return built ??= buildEdgeWorker();
}

/** Starts workerd on 127.0.0.1 with a bundle and the remote server's URL bound. */
function startWorkerd(
  scriptPath: string,
  remote: TestServer,
  bindings: Record<string, string> = {},
  quiet = false,
): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { REMOTE_MCP_URL: remote.url, ...bindings },
    host: "127.0.0.1",
    port: 0,
    // The worker's console output, drained unread when it is expected noise.
    handleRuntimeStdio: quiet
      ? (stdout: { resume(): void }, stderr: { resume(): void }) => {
        stdout.resume();
        stderr.resume();
      }
      : undefined,
  });
}

const outside = (input: string) => input.startsWith("node:") || input.includes("/src/deno/");

Deno.test("deno task bundle:edge bundles the worker with no node: import and nothing from src/deno", async () => {
  // The checks below would see these.
  assertEquals(nodeImports('import{a as b}from"node:fs";require("node:os")'), [
    "node:fs",
    "node:os",
  ]);
  assert(outside("../src/deno/mod.ts"));

  const { code, inputs } = await edgeWorker();
  assertEquals(nodeImports(code), []);
  assert(inputs.some((input) => input.endsWith("src/core/tool_router.ts")), "the core is bundled");
  assert(inputs.some((input) => input.endsWith("examples/edge_worker.ts")), "the example too");
  assertEquals(inputs.filter(outside), []);
  assertEquals((await moduleGraph("examples/edge_worker.ts")).filter(outside), []);
});

Deno.test("the edge bundle stays within its budget; toolroute's own share is measured", async () => {
  const { code, map } = await edgeWorker();
  const worker = await gzipSize(code);
  // toolroute's code as it sits in the edge bundle: what the source map attributes to src/.
  const own = await gzipSize(codeOfInputs(code, map, (source) => source.startsWith("../src/")));
  // Every export of the portable entry, bundled with zod, the SDK and cfworker left out.
  const core = await gzipSize((await bundle("mod.ts", "dist/core.js", await npmExternals())).code);
  const target = own < OWN_CODE_TARGET_BYTES ? "within" : "over";
  console.log(
    `edge bundle ${kb(worker)} gzipped (budget ${
      kb(BUNDLE_BUDGET_BYTES)
    }); toolroute's own code in it ${kb(own)} (${target} the 15 KB target); all of mod.ts ${
      kb(core)
    }`,
  );
  assert(
    worker < BUNDLE_BUDGET_BYTES,
    `the edge bundle is ${kb(worker)} gzipped, over ${kb(BUNDLE_BUDGET_BYTES)}`,
  );
  assert(own < OWN_CODE_CEILING_BYTES, `toolroute's own code is ${kb(own)} gzipped: a dependency?`);
  assert(own > 5 * 1024, `only ${kb(own)} attributed to src/: the source map changed its paths?`);
});

Deno.test("a worker with function tools only bundles no MCP SDK client (mounting is the ./mcp entry's)", async () => {
  const { code, inputs } = await bundle(
    "tests/edge/_function_tools_worker.ts",
    "dist/function_tools_worker.js",
  );
  const { code: edge, inputs: edgeInputs } = await edgeWorker();
  // The SDK client's modules, and strings only its code has (the edge worker's gateway has them).
  const sdkClient = (input: string) =>
    /@modelcontextprotocol\/client\/.*\/(client\/client|shared\/protocol|util\/inMemory)\.ts$/
      .test(input);
  const markers = ["Server does not support tools", "Server's protocol version is not supported"];
  assert(edgeInputs.some(sdkClient), "the check sees the SDK client where it is");
  for (const marker of markers) assert(edge.includes(marker), `the edge worker has "${marker}"`);
  assertEquals(inputs.filter(sdkClient), []);
  for (const marker of markers) assert(!code.includes(marker), `"${marker}" is bundled`);
  assertEquals(inputs.filter((input) => input.endsWith("src/core/mcp/mount_mcp_server.ts")), []);
  console.log(
    `function tools only: ${kb(await gzipSize(code))} gzipped; the edge worker ${
      kb(await gzipSize(edge))
    }`,
  );
});

Deno.test("the edge worker serves its allowlisted tools from workerd over real HTTP", async () => {
  const { path } = await edgeWorker();
  const remote = await startMcpTestServer({ tools: forecastTools });
  const started = performance.now();
  const workerd = startWorkerd(path, remote, { TOOL_LIST_TTL_MS: "300" });
  const client = new Client({ name: "workerd-test", version: "1.0.0" });
  try {
    const url = await workerd.ready;
    const readyMs = performance.now() - started;
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", url));
    await client.connect(transport);
    const firstMs = performance.now() - started;
    const listed = performance.now();
    const { tools } = await client.listTools();
    const firstListMs = performance.now() - listed;
    assertEquals(tools.map((tool) => tool.name), [
      "add",
      "forecast",
      "units_celsius_to_fahrenheit",
    ]);
    assert(tools.find((tool) => tool.name === "forecast")?.outputSchema, "forecast has its schema");

    assertEquals(await call(client, "add", { a: 2, b: 3 }), { text: '{"sum":5}', isError: false });
    assertEquals(await call(client, "units_celsius_to_fahrenheit", { celsius: 100 }), {
      text: "212",
      isError: false,
    });
    const forecast = await client.callTool({ name: "forecast", arguments: { city: "Oslo" } });
    assertEquals(forecast.isError, undefined, JSON.stringify(forecast.content));
    assertEquals(forecast.structuredContent, { city: "Oslo", celsius: 3, sky: "snow" });

    const invalid = await call(client, "add", { a: "two", b: 3 });
    assertEquals(invalid.isError, true);
    assertMatch(invalid.text, /Invalid arguments for tool "add"/);
    const refused = await call(client, "reset_database", {});
    assertEquals(refused.isError, true);
    assertMatch(refused.text, /Unknown tool "reset_database"/);

    // Stateless: no session to keep, no event stream to hold an isolate.
    assertEquals(transport.sessionId, undefined);
    const stream = await fetch(new URL("/mcp", url), { headers: { accept: "text/event-stream" } });
    await stream.body?.cancel();
    assertEquals(stream.status, 405);

    const warm = performance.now();
    await client.listTools();
    const warmListMs = performance.now() - warm;
    // The remote server's change reaches the isolate once its tool list is older than the TTL.
    await remote.changeTools((server) =>
      server.registerTool("radar", { description: "Rain radar" }, () => ({ content: [] }))
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert((await client.listTools()).tools.some((tool) => tool.name === "radar"), "radar listed");
    // Every request above ran in one isolate, which kept its one connection to the remote server.
    assertEquals(remote.sessionsStarted, 1);
    console.log(
      `workerd ready after ${ms(readyMs)}, first request answered after ${ms(firstMs)} (${
        ms(firstMs - readyMs)
      } after ready); first tools/list with the remote connect ${ms(firstListMs)}, warm ${
        ms(warmListMs)
      }`,
    );
  } finally {
    await client.close();
    await workerd.dispose();
    await remote.close();
  }
});

Deno.test("workerd forbids code generation: ajv fails where cfworker's works, the SDK's default there is cfworker's; a mounted server needs neither", async () => {
  const { path } = await bundle("tests/edge/_validator_worker.ts", "dist/validator_worker.js");
  const remote = await startMcpTestServer({ tools: forecastTools });
  // ajv logs the generated code it could not compile: expected noise, drained unread.
  const workerd = startWorkerd(path, remote, {}, true);
  try {
    const url = await workerd.ready;
    const get = async (path: string) => await (await fetch(new URL(path, url))).json();
    // A remote server's tools, through McpGateway.
    const forecast = { city: "Oslo", celsius: 3, sky: "snow" };
    // ajv compiles the output schema at the call, and workerd refuses: the result is not passed.
    const failed = await get("/remote?validator=ajv");
    assertEquals(failed.result, "tool_error");
    assertMatch(failed.text, /Code generation from strings disallowed/);
    // The SDK's runtime default in a browser/workerd build is its cfworker validator.
    assertEquals(await get("/remote?validator=sdk-default"), {
      names: ["forecast"],
      missing: [],
      result: forecast,
    });
    assertEquals(await get("/remote?validator=cfworker"), {
      names: ["forecast"],
      missing: [],
      result: forecast,
    });
    // An SDK McpServer mounted in-process: without a validator the in-process client compiles no
    // schema (the McpServer checks its own output), with one it uses the router's.
    assertEquals(await get("/mounted?validator=sdk-default"), {
      names: ["local_forecast"],
      result: '{"city":"Oslo","celsius":3,"sky":"snow"}',
    });
    assertEquals(await get("/mounted?validator=cfworker"), {
      names: ["local_forecast"],
      result: '{"city":"Oslo","celsius":3,"sky":"snow"}',
    });
  } finally {
    await workerd.dispose();
    await remote.close();
  }
});

Deno.test("policies, signed approvals, resume and callAll work in workerd", async () => {
  const { path } = await bundle("tests/edge/_policy_worker.ts", "dist/policy_worker.js");
  const remote = await startMcpTestServer({ tools: forecastTools });
  const workerd = startWorkerd(path, remote);
  try {
    const answer = await (await fetch(await workerd.ready)).json();
    assertEquals(answer, {
      names: ["read_notes", "write_note"],
      missing: ["drop_notes"],
      codes: [
        "permission_denied",
        "approval_required",
        "permission_denied",
        "written",
        "permission_denied",
      ],
      batch: [["1", "a"], ["2", "unknown_tool"]],
    });
  } finally {
    await workerd.dispose();
    await remote.close();
  }
});

Deno.test("the gateway's OAuth runs in workerd: PKCE by WebCrypto, per-user tokens, against a mock authorization server on loopback", async () => {
  const { path } = await bundle("tests/edge/_oauth_worker.ts", "dist/oauth_worker.js");
  const holder: { world?: OAuthWorld } = {};
  const serve = (request: Request) => holder.world!.fetch(request);
  const resource = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, serve);
  const issuer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, serve);
  const world = holder.world = createOAuthWorld({
    resource: `http://127.0.0.1:${resource.addr.port}`,
    issuers: [`http://127.0.0.1:${issuer.addr.port}`],
  });
  const workerd = startWorkerd(path, { url: world.mcpUrl } as TestServer);
  try {
    const base = await workerd.ready;
    const get = async (path: string, user: string) =>
      await (await fetch(new URL(path, base), { headers: { "x-user": user } })).json();
    for (const user of ["alice", "bob"]) {
      const first = await get("/expose", user);
      assertEquals(first.names, []);
      // The model-visible reason carries no URL; the worker hands it to the person.
      assert(!/https?:/.test(first.missing[0].reason), first.missing[0].reason);
      const authorizationUrl = first.authorizationUrl;
      assertEquals(new URL(authorizationUrl).searchParams.get("code_challenge_method"), "S256");
      // The user consents; the browser lands on the worker's redirect URI.
      const callback = world.consent(authorizationUrl, user);
      assert(callback.startsWith(`${new URL(base).origin}/oauth/callback?`), callback);
      assertEquals(await get(callback, user), { done: true });
    }
    // The mock server checked PKCE (S256 of the verifier) before issuing each user's token.
    assertEquals(world.tokenRequests.filter((r) => r.grant === "authorization_code").length, 2);
    assertEquals(await get("/call?tool=whoami", "alice"), { text: "alice", isError: false });
    assertEquals(await get("/call?tool=whoami", "bob"), { text: "bob", isError: false });
    assertEquals(await get("/call?tool=whoami", "alice"), { text: "alice", isError: false });
    // Each user's calls carried that user's own token.
    assert(world.bearers.some((token) => token.startsWith("at-alice-")));
    assert(world.bearers.some((token) => token.startsWith("at-bob-")));
  } finally {
    await workerd.dispose();
    await resource.shutdown();
    await issuer.shutdown();
  }
});

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return { text: content.map((part) => part.text).join("\n"), isError: result.isError === true };
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

Deno.test("a search over 10,000 deferred tools runs in workerd and ranks as in Deno (timed, printed)", async () => {
  const { path } = await bundle("tests/edge/_tool_search_worker.ts", "dist/tool_search_worker.js");
  const remote = await startMcpTestServer({ tools: forecastTools });
  const workerd = startWorkerd(path, remote);
  try {
    const base = await workerd.ready;
    // The same set searched here, in Deno: the worker's answers must be these, and the time of
    // one search here is the side-by-side figure.
    const local = searchCatalogSet();
    await searchNames(local, "warm up and build the index");
    let at = performance.now();
    assertEquals(await (await fetch(new URL("/build", base))).json(), { listed: local.names });
    const build = performance.now() - at;
    const expected: string[][] = [];
    const denoTimes: number[] = [];
    for (const [request] of REQUESTS) {
      at = performance.now();
      expected.push(await searchNames(local, request));
      denoTimes.push(performance.now() - at);
    }
    const perSearch: number[] = [];
    for (let round = 0; round < 5; round++) {
      const params = new URLSearchParams(REQUESTS.map(([request]) => ["q", request]));
      at = performance.now();
      const answer = await (await fetch(new URL(`/search?${params}`, base))).json();
      const batch = performance.now() - at;
      // The searches really ran in workerd over the 10,000 tools, with Deno's ranking.
      assertEquals(answer.found, expected);
      at = performance.now();
      await (await fetch(new URL("/noop", base))).json();
      perSearch.push(Math.max(0, batch - (performance.now() - at)) / REQUESTS.length);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
    console.log(
      `10,000 tools: in workerd one search ${
        median(perSearch).toFixed(3)
      } ms on average (median of 5 batches of ${REQUESTS.length}), the set and its index ${
        ms(build)
      } with the round trip; in Deno the same searches ${
        (denoTimes.reduce((sum, time) => sum + time, 0) / denoTimes.length).toFixed(3)
      } ms on average, ${median(denoTimes).toFixed(3)} ms median (a batch gives an average)`,
    );
  } finally {
    await workerd.dispose();
    await remote.close();
  }
});
