import type { McpServerConfig } from "../../core/mcp/mcp_server_config.ts";
import { formatIssues, mcpConfigFileSchema, type RawMcpServer } from "./mcp_config_schema.ts";
import { protoKeyIssues } from "./proto_keys.ts";

/** Options of {@linkcode loadMcpConfig} and {@linkcode parseMcpConfig}. */
export interface LoadMcpConfigOptions {
  /**
   * The variables `${VAR}` expands from. Default: the process environment (`Deno.env`), which
   * needs `allow-env` for each variable the file names.
   */
  env?: Record<string, string | undefined>;
}

/** `${VAR}`, `${VAR:-default}`, and Cursor's `${env:VAR}`, which means the same. */
export const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Reads an MCP config file in the Claude Desktop format, `{ "mcpServers": { id: config } }`,
 * ready for `new McpGateway({ servers })`.
 *
 * Each server is `{ url, headers?, transport?: "http" | "sse" }` or
 * `{ command, args?, env?, cwd? }` (a `type` field as other clients write it is understood).
 * `${VAR}` (or `${VAR:-default}`, or Cursor's `${env:VAR}`) in `url`, `headers` and `env` values
 * is replaced from
 * `options.env` or the environment. Throws a `TypeError` that lists every problem of the file
 * with its JSON path, or every variable that is not set, with the server and field using it.
 *
 * Requires `allow-read` permission for the file, and `allow-env` for the variables it names
 * unless `options.env` is given.
 *
 * @example Load servers from a file
 * ```ts ignore
 * import { McpGateway } from "@toolroute/toolroute/mcp";
 * import { loadMcpConfig } from "@toolroute/toolroute/deno";
 *
 * const gateway = new McpGateway({ servers: await loadMcpConfig("mcp.json") });
 * ```
 *
 * @tags allow-read, allow-env
 * @param path The file path.
 * @param options Where variables come from.
 * @returns The server configs by id.
 */
export async function loadMcpConfig(
  path: string | URL,
  options: LoadMcpConfigOptions = {},
): Promise<Record<string, McpServerConfig>> {
  const text = await Deno.readTextFile(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `Cannot parse MCP config "${path}": ${(error as Error).message}; fix the JSON`,
    );
  }
  return parseMcpConfig(value, { ...options, source: String(path) });
}

/**
 * Validates and expands an MCP config already parsed from JSON, as {@linkcode loadMcpConfig}
 * does for a file.
 *
 * @example Expand a header from an explicit map
 * ```ts
 * import { parseMcpConfig } from "@toolroute/toolroute/deno";
 *
 * const servers = parseMcpConfig({
 *   mcpServers: {
 *     search: { url: "http://127.0.0.1:8080/mcp", headers: { authorization: "Bearer ${TOKEN}" } },
 *   },
 * }, { env: { TOKEN: "abc" } });
 * console.log(servers.search); // { url: "http://127.0.0.1:8080/mcp", headers: { authorization: "Bearer abc" } }
 * ```
 *
 * @tags allow-env
 * @param value The parsed JSON.
 * @param options Where variables come from, and the name of the source for error messages.
 * @returns The server configs by id.
 */
export function parseMcpConfig(
  value: unknown,
  options: LoadMcpConfigOptions & { source?: string } = {},
): Record<string, McpServerConfig> {
  const source = options.source === undefined ? "MCP config" : `MCP config "${options.source}"`;
  const parsed = mcpConfigFileSchema.safeParse(value);
  const reserved = protoKeyIssues(value);
  if (!parsed.success || reserved.length > 0) {
    const lines = [...reserved, ...formatIssues(parsed.error?.issues ?? [])];
    throw new TypeError(`Invalid ${source}:\n${lines.map((line) => `  - ${line}`).join("\n")}`);
  }
  const lookup = options.env
    ? (name: string) => options.env?.[name]
    : (name: string) => Deno.env.get(name);
  const expanded = expandMcpServers(parsed.data.mcpServers, lookup);
  const servers = expanded.servers;
  const unset = expanded.unset.map(({ name, path: [id, ...field] }) =>
    `"${name}" (server "${id}", ${field.join(".")})`
  );
  if (unset.length > 0) {
    throw new TypeError(
      `Cannot expand ${source}: ${unset.length === 1 ? "variable" : "variables"} not set: ${
        unset.join(", ")
      }; set ${unset.length === 1 ? "it" : "them"} or pass them in options.env`,
    );
  }
  return servers;
}

/** A `${VAR}` with no value: the variable and where it is used (server id, then the field). */
export interface UnsetVariable {
  /** The variable's name. */
  name: string;
  /** The server id and the field's keys, e.g. `["github", "headers", "Authorization"]`. */
  path: string[];
}

/**
 * Expands `${VAR}` in validated server entries and leaves out disabled servers; collects the
 * variables that are not set instead of throwing, so each caller words the error for its file.
 *
 * @param raw The validated `mcpServers` entries.
 * @param lookup A variable's value, or `undefined`.
 * @returns The server configs, and the unset variables with where each is used.
 */
export function expandMcpServers(
  raw: Record<string, RawMcpServer>,
  lookup: (name: string) => string | undefined,
): { servers: Record<string, McpServerConfig>; unset: UnsetVariable[] } {
  const unset: UnsetVariable[] = [];
  const servers: Record<string, McpServerConfig> = {};
  for (const [id, entry] of Object.entries(raw)) {
    if (entry.disabled === true) continue;
    const expand = (text: string, field: string[]): string =>
      text.replace(VARIABLE, (_, name: string, fallback?: string) => {
        const found = lookup(name) ?? fallback;
        if (found === undefined) unset.push({ name, path: [id, ...field] });
        return found ?? "";
      });
    servers[id] = toConfig(entry, expand);
  }
  return { servers, unset };
}

function toConfig(
  raw: RawMcpServer,
  expand: (text: string, field: string[]) => string,
): McpServerConfig {
  // The keys other clients write: `type` is read here, the rest only accepted.
  const { type, disabled: _, autoApprove: _a, alwaysAllow: _b, ...config } = raw;
  const map = (record: Record<string, string>, field: string) =>
    Object.fromEntries(
      Object.entries(record).map(([key, text]) => [key, expand(text, [field, key])]),
    );
  const { url, headers, oauth, env, secretEnv: listed, secretArgs, ...rest } = config;
  if (url !== undefined) {
    const transport = config.transport ?? (type === "sse" ? "sse" : undefined);
    return {
      ...rest,
      url: expand(url, ["url"]),
      ...(headers ? { headers: map(headers, "headers") } : {}),
      ...(transport ? { transport } : {}),
      ...(oauth
        ? {
          oauth: {
            ...oauth,
            clientId: expand(oauth.clientId, ["oauth", "clientId"]),
            ...(oauth.clientSecret === undefined
              ? {}
              : { clientSecret: expand(oauth.clientSecret, ["oauth", "clientSecret"]) }),
          },
        }
        : {}),
    };
  }
  // A value that came from a variable is a secret as far as toolroute can tell (a token kept out
  // of the file); one written in the file is configuration unless it is listed or named as one.
  const substituted = Object.entries(env ?? {})
    .filter(([, text]) => text.search(VARIABLE) !== -1)
    .map(([name]) => name);
  const secretEnv = [...new Set([...(listed ?? []), ...substituted])];
  return {
    ...rest,
    command: rest.command as string,
    ...(env ? { env: map(env, "env") } : {}),
    ...(secretEnv.length > 0 ? { secretEnv } : {}),
    ...(secretArgs?.length ? { secretArgs: [...new Set(secretArgs)] } : {}),
  };
}
