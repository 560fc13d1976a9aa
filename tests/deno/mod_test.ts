import { assertEquals } from "@std/assert";
import * as entry from "../../src/deno/mod.ts";
import { fromFileUrl } from "./cli/_file_url.ts";

// The public surface of "@toolroute/toolroute/deno". Adding or removing an export must update
// these lists (and the README): that is the point of this test. It repeats no root or ./mcp
// name: a Deno user imports those from there (tests/mod_test.ts checks no entry repeats another).
const VALUES: Record<string, "function" | "object"> = {
  CONTEXT_DEFAULTS: "object",
  DenoKvStore: "function",
  NETWORK_ENV: "object",
  DenoStdioClientTransport: "function",
  FileAuditSink: "function",
  FileResultStore: "function",
  RedisStore: "function",
  SqliteStore: "function",
  assertNoExcess: "function",
  builtinTools: "function",
  checkPermissions: "function",
  createDenoGateway: "function",
  denoFlags: "function",
  denoStdioTransportFactory: "function",
  loadMcpConfig: "function",
  parseMcpConfig: "function",
  requiredPermissions: "function",
  resolveBuiltinContext: "function",
  stdioChildCommand: "function",
};

const TYPES = [
  "ApplyPatchResult",
  "BashSetting",
  "BuiltinContext",
  "BuiltinTools",
  "BuiltinToolsOptions",
  "CommandResult",
  "ContextDefaults",
  "DenoGatewayOptions",
  "DenoKvAtomicLike",
  "DenoKvLike",
  "DenoStdioClientTransportOptions",
  "EditFileResult",
  "FileAuditSinkOptions",
  "FileChange",
  "GlobResult",
  "GrepMatch",
  "GrepResult",
  "LoadMcpConfigOptions",
  "LogSlice",
  "PermissionGap",
  "PermissionReport",
  "ProcessInfo",
  "ReadFileResult",
  "RedisClientLike",
  "RedisStoreOptions",
  "RequiredPermissions",
  "ResolvedBash",
  "ResolvedContext",
  "SqliteStoreOptions",
  "StdioChildCommand",
  "StdioChildOptions",
  "StdioServerCommand",
  "WriteFileResult",
];

const ENTRY = fromFileUrl(new URL("../../src/deno/mod.ts", import.meta.url));

/** Every symbol an entry exports, types included, as `deno doc` sees it. */
async function documentedNames(path: string): Promise<string[]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", path],
    stdin: "null",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  const doc = JSON.parse(new TextDecoder().decode(stdout));
  const node = Object.values(doc.nodes)[0] as { symbols: { name: string }[] };
  return node.symbols.map((symbol) => symbol.name).sort();
}

Deno.test("src/deno/mod.ts exports exactly the public runtime values, each of its kind", () => {
  assertEquals(Object.keys(entry).sort(), Object.keys(VALUES).sort());
  for (const [name, kind] of Object.entries(VALUES)) {
    assertEquals(typeof entry[name as keyof typeof entry], kind, name);
  }
  assertEquals(Object.isFrozen(entry.CONTEXT_DEFAULTS), true);
});

Deno.test("src/deno/mod.ts exports exactly the public values and types (deno doc)", async () => {
  assertEquals(await documentedNames(ENTRY), [...Object.keys(VALUES), ...TYPES].sort());
});
