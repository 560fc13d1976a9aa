import { dirname, isAbsolute, relative, resolve } from "@std/path";
import { isStdioConfig, type McpServerConfig } from "../../core/mcp/mcp_server_config.ts";
import type { BuiltinContext } from "../../core/tool_source.ts";
import { CONTEXT_DEFAULTS } from "../builtins/builtin_context.ts";
import { formatIssues, jsonPath, type RawMcpServer } from "../mcp/mcp_config_schema.ts";
import { protoKeyIssues } from "../mcp/proto_keys.ts";
import { expandMcpServers, type UnsetVariable, VARIABLE } from "../mcp/load_mcp_config.ts";
import { type ToolrouteConfigFile, toolrouteConfigSchema } from "./config_schema.ts";
import { adaptClientConfig, dropMcpClientKeys } from "./client_config.ts";
import { parseJsonc } from "./parse_jsonc.ts";
import type { ToolrouteConfig, UserConfig } from "./toolroute_config.ts";
import type { Ask } from "./terminal_approval.ts";
import { UsageError } from "./usage_error.ts";
import { compilePolicy } from "../../core/policy/policy_engine.ts";
import { workspaceProblems } from "./user_workspace.ts";

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** Overrides the file's workspace (relative to the current directory). */
  workspace?: string;
  /**
   * Where `${VAR}` values come from; `false` leaves them unexpanded (to list the variables
   * without reading them). Default: the process environment.
   */
  env?: Record<string, string | undefined> | false;
  /** The current directory, for relative paths. Default: `Deno.cwd()`. */
  cwd?: string;
  /** Receives warnings, such as the keys of an MCP client's config that are ignored. */
  onWarning?: (message: string) => void;
  /** Asks a person for a VS Code `${input:…}` value; without it such a file is refused. */
  ask?: Ask;
}

/**
 * Reads, validates and resolves a `toolroute.json` (JSON with comments allowed). Without a path,
 * the defaults: the file built-ins for `workspace` when one is given, nothing otherwise. Built-in
 * tools are on only when asked for (`workspace`, `bash` or `expose.builtins` in the file, or the
 * `workspace` option): a file with only `mcpServers` serves no built-in.
 *
 * Throws a {@linkcode UsageError} listing every problem of the file with its JSON path, or
 * every `${VAR}` that is not set.
 *
 * Requires `allow-read` for the file, and `allow-env` for the variables it names.
 *
 * @tags allow-read, allow-env
 * @param path The config file, or `undefined` for the defaults.
 * @param options Workspace override, variables and current directory.
 */
export async function loadConfig(
  path: string | undefined,
  options: LoadConfigOptions = {},
): Promise<ToolrouteConfig> {
  const cwd = options.cwd ?? currentDirectory();
  if (path === undefined) return resolveConfig({}, { ...options, cwd });
  const absolute = resolve(cwd, path);
  let text: string;
  try {
    text = await Deno.readTextFile(absolute);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Cannot read config "${path}": the file does not exist`);
    }
    if (error instanceof Deno.errors.NotCapable) {
      throw new UsageError(`Cannot read config "${path}": add --allow-read=${absolute}`);
    }
    throw new UsageError(`Cannot read config "${path}": ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (error) {
    throw new UsageError(`Cannot parse config "${path}": ${(error as Error).message}`);
  }
  // Checked on the file's own keys: adapting a client's file rebuilds its objects.
  const reserved = protoKeyIssues(value);
  if (reserved.length > 0) {
    const lines = reserved.map((line) => `  - ${line}`).join("\n");
    throw new UsageError(`Invalid config "${absolute}":\n${lines}`);
  }
  value = await adaptClientConfig(value, absolute, {
    ask: options.ask,
    inputs: options.env !== false,
  });
  return resolveConfig(value, { ...options, path: absolute, cwd });
}

/**
 * Validates and resolves a config value already parsed, as {@linkcode loadConfig} does.
 *
 * @param options The file's absolute `path` (none for the defaults), the current directory
 *   (`cwd`), the workspace override and variables.
 */
export function resolveConfig(
  value: unknown,
  options: LoadConfigOptions & { path?: string; cwd: string },
): ToolrouteConfig {
  const { path, cwd } = options;
  const source = path === undefined ? "config" : `config "${path}"`;
  const parsed = toolrouteConfigSchema.safeParse(dropMcpClientKeys(value, path, options));
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues).map((line) => `  - ${line}`);
    throw new UsageError(`Invalid ${source}:\n${lines.join("\n")}`);
  }
  const file: ToolrouteConfigFile = parsed.data;
  const base = path === undefined ? cwd : dirname(path);
  const at = (entry: string) => isAbsolute(entry) ? resolve(entry) : resolve(base, entry);
  const workspace = options.workspace !== undefined
    ? resolve(cwd, options.workspace)
    : at(file.workspace ?? ".");
  const context: BuiltinContext = { workspace };
  if (file.readOnlyRoots) context.readOnlyRoots = file.readOnlyRoots.map(at);
  if (file.allowBroadRoots !== undefined) context.allowBroadRoots = file.allowBroadRoots;
  // The config file and modules decide what the next start serves: when they sit inside the
  // workspace, the tools must not be able to rewrite them.
  const modules = (file.modules ?? []).map(at);
  const own = [path, ...modules].flatMap((entry) => {
    const inner = entry === undefined ? "" : relative(workspace, entry);
    if (inner === "" || inner.startsWith("..") || isAbsolute(inner)) return [];
    // "./name": that file only, not every file of that name at any depth.
    return [inner.includes("/") ? inner : `./${inner}`];
  });
  if (file.protectedPaths || own.length > 0) {
    context.protectedPaths = [...(file.protectedPaths ?? CONTEXT_DEFAULTS.protectedPaths), ...own];
  }
  if (file.env) context.env = file.env;
  if (file.bash !== undefined) context.bash = file.bash;
  const { callTimeoutMs, maxResultChars, listWaitMs, ...contextLimits } = file.limits ?? {};
  Object.assign(context, contextLimits);

  const variables = new Set<string>();
  const users = Object.entries(file.users ?? {});
  for (const name of JSON.stringify([file.mcpServers, users]).matchAll(VARIABLE)) {
    variables.add(name[1]);
  }
  for (const [tokenVariable] of users) variables.add(tokenVariable);
  const env = options.env === false
    ? Object.fromEntries([...variables].map((name) => [name, `\${${name}}`]))
    : options.env;
  const problems: string[] = [];
  const unset: UnsetVariable[] = [];
  const lookup = (name: string) => env === undefined ? Deno.env.get(name) : env[name];
  const expand = (servers: Record<string, RawMcpServer> | undefined, where: string[]) => {
    if (servers === undefined) return {};
    try {
      const expanded = expandMcpServers(servers, lookup);
      unset.push(...expanded.unset.map((entry) => ({ ...entry, path: [...where, ...entry.path] })));
      return path === undefined ? expanded.servers : resolveStdioPaths(expanded.servers, base);
    } catch (error) {
      problems.push((error as Error).message);
      return {};
    }
  };
  const mcpServers = expand(file.mcpServers, ["mcpServers"]);
  const userConfigs: UserConfig[] = users.map(([tokenVariable, user]) => ({
    tokenVariable,
    id: user.id,
    mcpServers: expand(user.mcpServers, ["users", tokenVariable, "mcpServers"]),
  }));
  if (unset.length > 0) problems.push(unsetMessage(source, unset));
  const ids = new Map<string, string>();
  for (const user of userConfigs) {
    const other = ids.get(user.id);
    if (other !== undefined) {
      problems.push(`users.${other} and users.${user.tokenVariable} have the same id "${user.id}"`);
    }
    ids.set(user.id, user.tokenVariable);
  }
  problems.push(
    ...workspaceProblems({ context, users: userConfigs, sharedWorkspace: file.sharedWorkspace })
      .map((problem) => `${source}: ${problem}`),
  );
  if (file.policy !== undefined) {
    try {
      compilePolicy(file.policy, "router");
    } catch (error) {
      problems.push(`${source}, policy: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new UsageError(problems.join("\n"));
  const builtins = options.workspace !== undefined || file.workspace !== undefined ||
    file.bash !== undefined || file.expose?.builtins !== undefined;
  return {
    ...(path === undefined ? {} : { path }),
    context,
    ...(file.sharedWorkspace === undefined ? {} : { sharedWorkspace: file.sharedWorkspace }),
    builtins,
    modules,
    expose: file.expose ?? {},
    mcpServers,
    users: userConfigs,
    ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
    ...(maxResultChars === undefined ? {} : { maxResultChars }),
    ...(listWaitMs === undefined ? {} : { listWaitMs }),
    http: file.http ?? {},
    ...(file.policy === undefined ? {} : { policy: file.policy }),
    variables: [...variables].sort(),
  };
}

/**
 * A stdio server's relative paths are the config file's, as a user reading the file expects: a
 * `command` with a `/` and a relative `cwd` resolve against the file's folder, and a missing `cwd`
 * is that folder, so relative `args` (a script, a data file) resolve there too. A bare command
 * (`npx`, `deno`) is still looked up on `PATH`.
 */
function resolveStdioPaths(
  servers: Record<string, McpServerConfig>,
  folder: string,
): Record<string, McpServerConfig> {
  const at = (entry: string) => isAbsolute(entry) ? resolve(entry) : resolve(folder, entry);
  return Object.fromEntries(
    Object.entries(servers).map(([id, server]) => {
      if (!isStdioConfig(server)) return [id, server];
      const command = server.command.includes("/") ? at(server.command) : server.command;
      return [id, { ...server, command, cwd: at(server.cwd ?? ".") }];
    }),
  );
}

function unsetMessage(source: string, unset: readonly UnsetVariable[]): string {
  const list = unset.map(({ name, path }) => `"${name}" (used at ${jsonPath(path)})`).join(", ");
  return unset.length === 1
    ? `Cannot expand ${source}: variable ${list} is not set; set it in the environment toolroute runs in`
    : `Cannot expand ${source}: variables ${list} are not set; set them in the environment toolroute runs in`;
}

function currentDirectory(): string {
  try {
    return Deno.cwd();
  } catch {
    throw new UsageError(
      "Cannot resolve relative paths: reading the current directory was denied; pass absolute paths or add --allow-read for it",
    );
  }
}
