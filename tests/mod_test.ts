/**
 * The public entries list their names (below, with ./deno's in tests/deno/mod_test.ts).
 *
 * The portable core proves it is web-standard three ways: the module graph from `mod.ts` holds no
 * `node:` specifier and no file under `src/deno/`; the core sources never name `Deno.`, `process`
 * or `node:`; and `deno task test:core` runs the core suite with no permission at all.
 */
import { assert, assertEquals } from "@std/assert";
import { walk } from "@std/fs";
import { join, relative } from "@std/path";
import { runsOf } from "./_helpers/deno_tests.ts";

const fromFileUrl = (url: string | URL): string => decodeURIComponent(new URL(url).pathname);

const root = fromFileUrl(new URL("../", import.meta.url));

interface GraphModule {
  specifier: string;
  kind?: string;
}

async function moduleGraph(entry: string): Promise<GraphModule[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  const npm = Object.values(info.npmPackages ?? {}) as { name: string }[];
  return [
    ...(info.modules as GraphModule[]),
    ...npm.map((p) => ({ specifier: `npm:${p.name}` })),
  ];
}

// The root entry and the host's other web-standard entries; ./mcp is checked on its own below.
const HOST_ENTRIES = [
  "mod.ts",
  "src/core/hooks/mod.ts",
  "src/core/stores.ts",
  "src/core/formats.ts",
  "src/core/options.ts",
];

Deno.test("mod.ts and the host's subpaths reach no node: module and no file under src/deno", async () => {
  for (const entry of HOST_ENTRIES) {
    const modules = await moduleGraph(entry);
    const local = modules.filter((m) => m.specifier.startsWith("file:"));
    assert(local.length > 1, `the graph of ${entry} lists its files`);
    const offending = modules.filter((m) =>
      m.specifier.startsWith("node:") ||
      (m.specifier.startsWith("file:") &&
        relative(root, fromFileUrl(m.specifier)).startsWith("src/deno/"))
    );
    assertEquals(offending.map((m) => m.specifier), [], entry);
  }
});

Deno.test("mod.ts and the host's subpaths reach no MCP SDK: the gateway, OAuth and serving are the ./mcp entry's", async () => {
  const sdk = (m: GraphModule) =>
    m.specifier.includes("@modelcontextprotocol/") || m.specifier.endsWith("/mcp_sdk.ts");
  // The check sees the SDK where it is: the MCP entry reaches the one module that imports it.
  const mcp = await moduleGraph("src/core/mcp/mod.ts");
  assert(mcp.some((m) => m.specifier.endsWith("/src/core/mcp/mcp_sdk.ts")), "./mcp has the SDK");
  assertEquals(
    mcp.filter((m) =>
      m.specifier.startsWith("node:") ||
      (m.specifier.startsWith("file:") &&
        relative(root, fromFileUrl(m.specifier)).startsWith("src/deno/"))
    ).map((m) => m.specifier),
    [],
  );
  // Type-only imports of the SDK's protocol types (mcp_sdk_types.ts) bundle nothing.
  for (const entry of HOST_ENTRIES) {
    const code = (await moduleGraph(entry)).filter((m) => m.specifier.startsWith("file:"));
    assertEquals(code.filter(sdk).map((m) => m.specifier), [], entry);
  }
});

Deno.test("the core sources never name Deno, process or node: modules", async () => {
  const pattern =
    /\bDeno\.|(?<![\w-])process\.(?:env|exit|argv|cwd|platform|on|std|pid|kill|version)|from\s+["']node:|import\(["']node:|require\(/;
  const offending: string[] = [];
  for await (
    const { path } of walk(join(root, "src/core"), { includeDirs: false, exts: [".ts"] })
  ) {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/\/\*.*?\*\/|\/\/.*$/g, "");
      if (!/^\s*\*/.test(code) && pattern.test(code)) {
        offending.push(`${relative(root, path)}:${i + 1}`);
      }
    });
  }
  const mod = await Deno.readTextFile(join(root, "mod.ts"));
  assert(!/from\s+["']\.\/src\/deno\//.test(mod), "mod.ts exports nothing from src/deno");
  assertEquals(offending, []);
});

Deno.test("the core test task runs the core's tests and doc tests with no permission flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const task: string = config.tasks["test:core"];
  assert(task.endsWith("tests/_helpers/deno_tests.ts core"), task);
  const [run, ...others] = await runsOf("core");
  assertEquals(others, []);
  assertEquals(run.permitted, false);
  assertEquals(run.doc, ["mod.ts", "src/core/"]);
  assert(run.modules.length > 50 && run.modules.every((path) => path.startsWith("tests/core/")));
});

// The public surface of each web-standard entry, values and types, as `deno doc` sees it. Adding
// or removing an export must update these lists and the README's migration note: that is the
// point of these tests. Each entry serves one audience; a name lives in one entry only.
const ENTRIES: Record<string, string[]> = {
  // The host API: router, tool sets, definitions, results, errors, policy.
  "mod.ts": [
    "ApprovalAnswer",
    "ApprovalHandler",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalScope",
    "ApprovalSelection",
    "CallOptions",
    "ERROR_CODES",
    "ErrorCode",
    "FunctionTool",
    "FunctionToolSpec",
    "Grant",
    "InferArgs",
    "InputSchema",
    "McpService",
    "McpServiceSpec",
    "McpServiceToolSpec",
    "PendingApproval",
    "Policy",
    "PolicyAction",
    "PolicyLimit",
    "RouterInvokeOptions",
    "SourceKind",
    "ToolCallEvent",
    "ToolCallResult",
    "ToolContent",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolRouter",
    "ToolRouterOptions",
    "ToolSelection",
    "ToolSet",
    "defineMcpService",
    "defineTool",
    "isToolError",
    "isToolOutput",
    "toAnthropicToolResult",
    "toOpenAIToolOutput",
    "toolOutput",
  ],
  // Call middleware: retry, circuit breaker, result cache, secret scanning, one's own hooks.
  "src/core/hooks/mod.ts": [
    "CircuitBreakerOptions",
    "HookAfterCall",
    "HookBeforeResult",
    "HookCall",
    "HookRecord",
    "ResultCacheOptions",
    "RetryHookOptions",
    "SecretPattern",
    "SecretScannerOptions",
    "ToolHook",
    "WELL_KNOWN_SECRETS",
    "circuitBreakerHook",
    "resultCacheHook",
    "retryHook",
    "secretScannerHook",
  ],
  // Where a router keeps what outlives a call: approval and result stores, the audit sink.
  "src/core/stores.ts": [
    "AuditDecision",
    "AuditRecord",
    "AuditSink",
    "EncryptedStore",
    "KeyValueEntry",
    "KeyValueIncrementOptions",
    "KeyValueResultStore",
    "KeyValueSetOptions",
    "KeyValueStore",
    "MemoryStore",
    "ResultStore",
    "StoreKey",
    "StoredResultInfo",
  ],
  // The model APIs' wire shapes, the content blocks, the name of a service's tool.
  "src/core/formats.ts": [
    "AnthropicTool",
    "AnthropicToolResult",
    "AnthropicToolResultBlock",
    "AnthropicToolSearchTool",
    "McpToolDescription",
    "OpenAIResponsesFunction",
    "OpenAIResponsesNamespace",
    "OpenAIResponsesTool",
    "OpenAIResponsesToolSearch",
    "OpenAITool",
    "OpenAIToolOutput",
    "OpenAIToolOutputPart",
    "ToolMediaContent",
    "ToolResourceContent",
    "ToolResourceLinkContent",
    "ToolTextContent",
    "toApiFunctionName",
  ],
  // The types of finer settings and reports (types only).
  "src/core/options.ts": [
    "ArgumentLimits",
    "BatchCall",
    "CallAllOptions",
    "DeferSetting",
    "MissingTool",
    "ResultBudget",
    "ShadowedTool",
    "ToolElicitation",
    "ToolElicitationResult",
    "ToolLogEntry",
    "ToolProgress",
  ],
  // The gateway, OAuth, pinning, serving and transports.
  "src/core/mcp/mod.ts": [
    "AuthorizationRequiredError",
    "CfWorkerValidatorOptions",
    "McpConnectionState",
    "McpElicitationRequest",
    "McpElicitationResult",
    "McpGateway",
    "McpGatewayEvent",
    "McpGatewayOptions",
    "McpHttpHandler",
    "McpHttpHandlerOptions",
    "McpHttpServerConfig",
    "McpJsonRpcMessage",
    "McpJsonSchemaValidation",
    "McpJsonSchemaValidator",
    "McpOAuth",
    "McpOAuthClient",
    "McpOAuthOptions",
    "McpProtocolSetting",
    "McpReconnectOptions",
    "McpServerConfig",
    "McpServerStatus",
    "McpStdioSandbox",
    "McpStdioSandboxSetting",
    "McpStdioServerConfig",
    "McpTransport",
    "McpTransportFactory",
    "McpTransportRequest",
    "MountOptions",
    "MountableMcpServer",
    "MountedMcpService",
    "PinStore",
    "PinningOptions",
    "ToolPin",
    "ToolSetProvider",
    "ToolSetRequest",
    "ToolSetServer",
    "ToolSetServerOptions",
    "cfWorkerJsonSchemaValidator",
    "mcpHttpHandler",
    "mountMcpServer",
    "UpstreamMethod",
    "UpstreamServer",
  ],
  // Writing a source of one's own: not yet stable.
  "src/core/unstable_source.ts": [
    "BuiltinRequest",
    "BuiltinSource",
    "GatewayRequest",
    "GatewayResolution",
    "GatewaySource",
    "JsonObjectSchema",
    "PolicySubjects",
    "RoutedTool",
    "SelectionKey",
    "ShellCommand",
    "SourceResolution",
  ],
};

/** Every symbol an entry exports, types included, as `deno doc` sees it. */
async function documentedNames(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const node = Object.values(doc.nodes)[0] as { symbols: { name: string }[] };
  return node.symbols.map((symbol) => symbol.name).sort();
}

for (const [entry, expected] of Object.entries(ENTRIES)) {
  Deno.test(`${entry} exports exactly its audience's names (deno doc)`, async () => {
    assertEquals(await documentedNames(entry), [...expected].sort());
  });
}

Deno.test("no name is exported by two entries: ./deno and ./cli repeat no root or ./mcp name", async () => {
  const seen = new Map<string, string>();
  const repeated: string[] = [];
  for (
    const entry of [...Object.keys(ENTRIES), "src/deno/mod.ts", "src/deno/cli/mod.ts"]
  ) {
    for (const name of await documentedNames(entry)) {
      const first = seen.get(name);
      if (first !== undefined) repeated.push(`${name}: ${first} and ${entry}`);
      else seen.set(name, entry);
    }
  }
  assertEquals(repeated, []);
  // The check sees the entries: the root's router and ./deno's built-ins are among the names.
  assertEquals([seen.get("ToolRouter"), seen.get("builtinTools")], ["mod.ts", "src/deno/mod.ts"]);
});

Deno.test("deno.json maps each entry the lists name, and doc:lint reads them all at once", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  assertEquals(config.exports, {
    ".": "./mod.ts",
    "./hooks": "./src/core/hooks/mod.ts",
    "./stores": "./src/core/stores.ts",
    "./formats": "./src/core/formats.ts",
    "./options": "./src/core/options.ts",
    "./mcp": "./src/core/mcp/mod.ts",
    "./deno": "./src/deno/mod.ts",
    "./cli": "./src/deno/cli/mod.ts",
    "./unstable-source": "./src/core/unstable_source.ts",
  });
  // One run: a type one entry names and another exports is public, so no entry repeats it.
  const lint: string = config.tasks["doc:lint"];
  for (const path of Object.values(config.exports as Record<string, string>)) {
    assert(lint.includes(path.slice(2)), `doc:lint reads ${path}`);
  }
  assert(!lint.includes("&&"), lint);
});
