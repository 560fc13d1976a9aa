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
export type {
  BashSetting,
  BuiltinContext,
  BuiltinRequest,
  BuiltinSource,
  GatewayRequest,
  GatewayResolution,
  GatewaySource,
  JsonObjectSchema,
  MissingTool,
  PolicySubjects,
  RoutedTool,
  SelectionKey,
  ShellCommand,
  SourceKind,
  SourceResolution,
  ToolContext,
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
} from "../core/tool_source.ts";
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
export type { McpGateway } from "../core/mcp/gateway/mcp_gateway.ts";
export type { McpOAuth } from "../core/mcp/gateway/oauth/mcp_oauth.ts";
export type { McpOAuthClient } from "../core/mcp/mcp_server_config.ts";
export type { McpOAuthOptions } from "../core/mcp/gateway/oauth/mcp_oauth_options.ts";
export type {
  KeyValueEntry,
  KeyValueIncrementOptions,
  KeyValueSetOptions,
  KeyValueStore,
} from "../core/store/key_value_store.ts";
export type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayEvent,
  McpGatewayOptions,
  McpReconnectOptions,
  McpServerStatus,
} from "../core/mcp/gateway/mcp_gateway_types.ts";
export type {
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from "../core/mcp/mcp_server_config.ts";
export type {
  McpJsonRpcMessage,
  McpJsonSchemaValidation,
  McpJsonSchemaValidator,
  McpTransport,
  McpTransportFactory,
  McpTransportRequest,
} from "../core/mcp/mcp_transport.ts";
export { SqliteStore } from "./store/sqlite_store.ts";
export type { SqliteStoreOptions } from "./store/sqlite_store.ts";
export { DenoKvStore } from "./store/deno_kv_store.ts";
export { RedisStore } from "./store/redis_store.ts";
export type { RedisClientLike, RedisStoreOptions } from "./store/redis_store.ts";
export type { DenoKvAtomicLike, DenoKvLike } from "./store/deno_kv_store.ts";
export type { PinningOptions, PinStore, ToolPin } from "../core/mcp/gateway/pin_store.ts";
export { MemoryStore } from "../core/store/memory_store.ts";
export { EncryptedStore } from "../core/store/encrypted_store.ts";
export type { StoreKey } from "../core/store/encrypted_store.ts";
export { FileAuditSink } from "./audit/file_audit_sink.ts";
export type { FileAuditSinkOptions } from "./audit/file_audit_sink.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "../core/audit_sink.ts";
export type { ApprovalOutcome } from "../core/policy_types.ts";
export type { ErrorCode } from "../core/tool_error.ts";
