/**
 * toolroute for Deno: the built-in tools (`read_file`, `write_file`, `apply_patch`, `edit`, `glob`,
 * `grep`, `bash`) confined to a workspace, and the mapping of their context onto Deno's permission flags.
 * Also the MCP gateway's Deno side: stdio servers as least-privilege child processes
 * (`createDenoGateway`) and Claude Desktop config files (`loadMcpConfig`).
 *
 * Containment is enforced twice: by toolroute's own path checks (on path components and again
 * after following symlinks) and by the Deno permission flags the context maps onto.
 *
 * @example Expose the file tools of one workspace
 * ```ts
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { builtinTools } from "@toolroute/toolroute/deno";
 * import { assertEquals } from "@std/assert";
 *
 * const workspace = await Deno.makeTempDir();
 * await using router = new ToolRouter({ builtins: builtinTools({ workspace }) });
 * const tools = await router.expose({ builtins: ["write_file", "read_file"] });
 * await tools.invoke("write_file", { path: "notes/a.txt", content: "hi\n" });
 * const read = await tools.call("read_file", { path: "../outside.txt" });
 * assertEquals(read.code, "permission_denied");
 * await Deno.remove(workspace, { recursive: true });
 * ```
 *
 * @module
 */

export { builtinTools } from "./builtins/builtin_tools.ts";
export type { BuiltinTools, BuiltinToolsOptions } from "./builtins/builtin_tools.ts";
export { CONTEXT_DEFAULTS, resolveBuiltinContext } from "./builtins/builtin_context.ts";
export type { ContextDefaults, ResolvedBash, ResolvedContext } from "./builtins/builtin_context.ts";
export type { ReadFileResult } from "./builtins/files/read_file.ts";
export type { WriteFileResult } from "./builtins/files/write_file.ts";
export type { ApplyPatchResult, FileChange } from "./builtins/patch/patch_transaction.ts";
export type { EditFileResult } from "./builtins/patch/edit.ts";
export type { GlobResult } from "./builtins/search/glob.ts";
export type { GrepMatch, GrepResult } from "./builtins/search/grep.ts";
export { denoFlags } from "./builtins/permissions/deno_flags.ts";
export { assertNoExcess, checkPermissions } from "./builtins/permissions/check_permissions.ts";
export type { PermissionGap, PermissionReport } from "./builtins/permissions/check_permissions.ts";
export type { RequiredPermissions } from "./builtins/permissions/required_permissions.ts";
export { requiredPermissions } from "./builtins/permissions/required_permissions.ts";
export type { CommandResult } from "./builtins/command/command_result.ts";
export type { ProcessInfo } from "./builtins/bash/background_process.ts";
export type { LogSlice } from "./builtins/command/log_buffer.ts";
// The built-in context is plain data the root entry's `expose` takes; it is the built-ins'.
export type { BashSetting, BuiltinContext } from "../core/tool_source.ts";
export { createDenoGateway, denoStdioTransportFactory } from "./mcp/deno_gateway.ts";
export type { DenoGatewayOptions } from "./mcp/deno_gateway.ts";
export { loadMcpConfig, parseMcpConfig } from "./mcp/load_mcp_config.ts";
export type { LoadMcpConfigOptions } from "./mcp/load_mcp_config.ts";
export { DenoStdioClientTransport } from "./mcp/stdio_client_transport.ts";
export type { DenoStdioClientTransportOptions } from "./mcp/stdio_client_transport.ts";
export { NETWORK_ENV, stdioChildCommand } from "./mcp/stdio_child_command.ts";
export type {
  StdioChildCommand,
  StdioChildOptions,
  StdioServerCommand,
} from "./mcp/stdio_child_command.ts";
export { SqliteStore } from "./store/sqlite_store.ts";
export type { SqliteStoreOptions } from "./store/sqlite_store.ts";
export { DenoKvStore } from "./store/deno_kv_store.ts";
export { FileResultStore } from "./store/file_result_store.ts";
export type { DenoKvAtomicLike, DenoKvLike } from "./store/deno_kv_store.ts";
export { RedisStore } from "./store/redis_store.ts";
export type { RedisClientLike, RedisStoreOptions } from "./store/redis_store.ts";
export { FileAuditSink } from "./audit/file_audit_sink.ts";
export type { FileAuditSinkOptions } from "./audit/file_audit_sink.ts";
