import * as z from "zod";

/** A client registered with an authorization server ahead of time, for one MCP server. */
export interface McpOAuthClient {
  /** The `client_id` the authorization server issued. */
  clientId: string;
  /** The secret of a confidential client; absent for a public client (`none`). */
  clientSecret?: string;
  /**
   * The authorization server the client is registered with (its issuer URL). When set, the
   * credentials are never presented to another one.
   */
  issuer?: string;
  /**
   * `client_credentials` for a machine client (no user, no browser: a service account, usually on
   * a global server); `authorization_code` (the default) for a user's own account.
   */
  grant?: "authorization_code" | "client_credentials";
  /**
   * A PKCS#8 PEM private key: the client authenticates with a signed JWT (`private_key_jwt`,
   * RFC 7523) instead of `clientSecret`.
   */
  privateKey?: string;
  /** The JWT's signing algorithm. Default: `"ES256"`. */
  signingAlgorithm?: string;
}

/**
 * Which MCP protocol era a server is spoken to in: `"auto"` (the default) asks the server with
 * `server/discover` and speaks the 2026-07-28 revision where it offers it, the 2025 era
 * (`initialize` and sessions) otherwise; `"2025"` always takes the 2025 era (no probe);
 * `"2026-07-28"` requires that revision and fails when the server does not offer it.
 */
export type McpProtocolSetting = "auto" | "2025" | "2026-07-28";

/** The values of {@linkcode McpProtocolSetting}, for the gateway's check and the files' schema. */
export const mcpProtocolSchema = z.enum(["auto", "2025", "2026-07-28"]);

/**
 * A remote MCP server over HTTP, as in Claude Desktop's `mcpServers` entries.
 *
 * `transport` picks Streamable HTTP (`"http"`) or the older HTTP+SSE transport (`"sse"`); when it
 * is absent, Streamable HTTP is tried first and SSE is used when the server does not speak it.
 */
export interface McpHttpServerConfig {
  /** The server's MCP endpoint, `http:` or `https:`. */
  url: string;
  /** Headers sent with every request to this server only (such as `Authorization`). */
  headers?: Record<string, string>;
  /** The transport; default: Streamable HTTP with fallback to SSE. */
  transport?: "http" | "sse";
  /** The protocol era; default `"auto"` (see {@linkcode McpProtocolSetting}). */
  protocol?: McpProtocolSetting;
  /**
   * Deadline of connecting to this server and listing its tools, in milliseconds; raise it for a
   * server that starts slowly. Default: the gateway's `connectTimeoutMs`.
   */
  connectTimeoutMs?: number;
  /**
   * The OAuth client registered ahead with this server's authorization server (for the gateway's
   * `oauth`). `grant: "client_credentials"` makes it a service account: a global server then
   * acts as that one account for every user, by this explicit setting only. Without it a global
   * server behind OAuth is authorized per user.
   */
  oauth?: McpOAuthClient;
  /**
   * The host trusts this server's tool annotations: its `readOnlyHint: true` counts (in
   * `callAll`, and for the retry and cache hooks). Without it a remote server's hints are only
   * its word, and its tools count as side-effecting.
   */
  trusted?: boolean;
  /**
   * The server's own names of the tools the host itself declares read-only, whatever the server
   * says.
   */
  readOnlyTools?: string[];
}

/**
 * A local MCP server spawned as a child process over stdio. Only the `./deno` entry can run it
 * (through the gateway's `transportFactory`); the portable core rejects it.
 */
export interface McpStdioServerConfig {
  /** The program to run. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Environment variables passed to it. */
  env?: Record<string, string>;
  /**
   * The names in `env` whose values are secrets, kept out of its results and errors (as
   * `[redacted]`). Names that read as secrets (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*PASSWORD`, …)
   * are secrets without being listed; other values (`NODE_ENV=production`, a path) are plain
   * configuration a result may show. `loadMcpConfig` adds every name whose value came from a
   * `${VAR}`.
   */
  secretEnv?: string[];
  /**
   * The indexes in `args` whose values are secrets, kept out of its results and errors as
   * `secretEnv`'s are (the whole argument, each word of it, and what follows its first `=`, as
   * in `--password=…`). A VS Code config's `${input:…}` answers in `args` are listed.
   */
  secretArgs?: number[];
  /** Its working directory. */
  cwd?: string;
  /**
   * The host trusts this server's tool annotations: its `readOnlyHint: true` counts (in
   * `callAll`, and for the retry and cache hooks). Without it a remote server's hints are only
   * its word, and its tools count as side-effecting.
   */
  trusted?: boolean;
  /**
   * The server's own names of the tools the host itself declares read-only, whatever the server
   * says.
   */
  readOnlyTools?: string[];
  /** The protocol era; default `"auto"` (see {@linkcode McpProtocolSetting}). */
  protocol?: McpProtocolSetting;
  /**
   * Deadline of connecting to this server and listing its tools, in milliseconds; raise it for a
   * server that starts slowly. Default: the gateway's `connectTimeoutMs`.
   */
  connectTimeoutMs?: number;
  /**
   * Where the server runs: `"bwrap"` (the default where bubblewrap is installed) in a
   * bubblewrap sandbox of its own (a fresh home, its own `/tmp`, no network, read-only access to
   * its program, runtime and package caches), an object to widen or bound that sandbox, or
   * `"none"` to run it as a plain process of the user. See {@linkcode McpStdioSandbox}.
   */
  sandbox?: McpStdioSandboxSetting;
}

/** Where a stdio server runs: unconfined (`"none"`), or in a bubblewrap sandbox. */
export type McpStdioSandboxSetting = "none" | "bwrap" | McpStdioSandbox;

/**
 * A stdio server's bubblewrap sandbox, widened or bounded (an object implies bubblewrap). Each
 * field adds to the defaults: the server always sees its program, its runtime and its package
 * caches read-only.
 */
export interface McpStdioSandbox {
  /** Host paths the server may read and write (such as server-filesystem's roots). */
  roots?: string[];
  /** Host paths the server may read only. */
  readOnly?: string[];
  /**
   * `"none"` (the default): no network at all; `{ allow }`: the host names it may reach
   * (`api.example.com`, `*.example.com`), through the same egress proxy as `bash`. An `npx -y`
   * or `uvx` command also gets its package registry.
   */
  network?: "none" | { allow: string[] };
  /** Bounds of the whole sandbox (processes and threads, memory in MiB). */
  limits?: { processes?: number; memoryMiB?: number };
}

/** One MCP server entry: HTTP (`url`) or stdio (`command`). */
export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig;

/**
 * Whether the host stands behind a remote tool being read-only: it names the tool in
 * `readOnlyTools`, or it marked the server `trusted` and the tool says `readOnlyHint: true`.
 *
 * @param config The server's config.
 * @param tool The server's own name of the tool and its annotations, as the server sent them.
 * @returns `true` when the tool counts as read-only.
 */
export function hostReadOnly(
  config: McpServerConfig | undefined,
  tool: { name: string; annotations: unknown },
): boolean {
  const { name: toolName, annotations } = tool;
  if (config === undefined) return false;
  if (config.readOnlyTools?.includes(toolName) === true) return true;
  return config.trusted === true &&
    (annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true;
}

/**
 * Returns whether a config is a stdio config.
 *
 * @param config The config.
 * @returns `true` for `{ command }` configs.
 */
export function isStdioConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return typeof (config as McpStdioServerConfig).command === "string";
}

/** What each checked field of a server config must be, as the problem names it. */
const FIELD_RULES = {
  trusted: "must be true or false",
  readOnlyTools: "must be an array of the server's tool names",
  protocol: 'must be "auto", "2025" or "2026-07-28"',
  connectTimeoutMs: "must be a number of milliseconds of at least 1",
  transport: 'must be "http" or "sse"',
  headers: "must map names to strings",
  oauth: 'must be { clientId, clientSecret?, grant?: "authorization_code" | "client_credentials" }',
};

/** The fields whose values carry credentials: never echoed in a problem. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(["headers", "oauth"]);

/** The fields every config may set (other fields pass: a host's config may carry more). */
const CONFIG_FIELDS = z.object({
  trusted: z.boolean().optional(),
  readOnlyTools: z.array(z.string()).optional(),
  protocol: mcpProtocolSchema.optional(),
  connectTimeoutMs: z.number().min(1).optional(),
});

/** The fields of an HTTP config. */
const HTTP_CONFIG_FIELDS = CONFIG_FIELDS.extend({
  transport: z.enum(["http", "sse"]).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: z.looseObject({
    clientId: z.string().min(1),
    grant: z.enum(["authorization_code", "client_credentials"]).optional(),
  }).optional(),
});

/**
 * Checks a server config when it is registered; throws a `TypeError` naming what is wrong.
 *
 * @param id The server id.
 * @param config The config.
 * @param options The host allowlist (`allowedHosts`), if any.
 */
export function checkServerConfig(
  id: string,
  config: McpServerConfig,
  options: { allowedHosts?: readonly string[] },
): void {
  if (typeof id !== "string" || id === "") {
    throw new TypeError(
      `Cannot add MCP server: the id must be a non-empty string, received ${JSON.stringify(id)}`,
    );
  }
  const fail = (why: string) => new TypeError(`Cannot add MCP server "${id}": ${why}`);
  if (config === null || typeof config !== "object") {
    throw fail('the config must be an object with "url" or "command"');
  }
  const stdio = isStdioConfig(config);
  const issue = (stdio ? CONFIG_FIELDS : HTTP_CONFIG_FIELDS).safeParse(config).error?.issues[0];
  if (issue !== undefined) {
    const field = issue.path[0] as keyof typeof FIELD_RULES;
    // Header values and the OAuth client's secret are credentials: their problem names the
    // place (`at "Authorization"`), never the value, which a host's log would keep.
    const received = SECRET_FIELDS.has(field)
      ? issue.path.length > 1 ? ` (at ${JSON.stringify(issue.path.slice(1).join("."))})` : ""
      : `, received ${JSON.stringify((config as unknown as Record<string, unknown>)[field])}`;
    throw fail(`"${field}" ${FIELD_RULES[field]}${received}`);
  }
  if (stdio) {
    if (config.command === "") throw fail('"command" must not be empty');
    const problem = sandboxProblem((config as { sandbox?: unknown }).sandbox);
    if (problem !== undefined) throw fail(problem);
    return;
  }
  if (typeof config.url !== "string") {
    throw fail('the config needs a "url" (HTTP) or a "command" (stdio)');
  }
  const url = URL.parse(config.url);
  if (url === null) throw fail('"url" is not a valid URL');
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail(`"url" must use http: or https:, received "${url.protocol}"`);
  }
  try {
    checkAllowedHost(url, options.allowedHosts);
  } catch (error) {
    throw fail((error as Error).message);
  }
}

/**
 * Throws when a URL's host is not in the allowlist. Entries are host names (`api.example.com`),
 * `host:port`, or `*.example.com` for any subdomain.
 *
 * @param url The URL.
 * @param allowedHosts The allowlist; `undefined` allows every host.
 */
export function checkAllowedHost(url: URL, allowedHosts: readonly string[] | undefined): void {
  if (allowedHosts === undefined) return;
  const host = url.hostname.toLowerCase();
  const hostPort = url.host.toLowerCase();
  const allowed = allowedHosts.some((entry) => {
    const pattern = entry.toLowerCase();
    if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
    return pattern === host || pattern === hostPort;
  });
  if (!allowed) {
    throw new TypeError(
      `Host "${url.host}" is not in "allowedHosts"; add it there to allow this server`,
    );
  }
}

/**
 * A stdio server's `sandbox` object (see {@linkcode McpStdioSandbox}): what the gateway checks a
 * config against and what the config files' schema (`loadMcpConfig`, `toolroute.json`) says.
 */
export const stdioSandboxSchema = z.strictObject({
  roots: z.array(z.string().startsWith("/")).optional()
    .describe("Host paths the server may read and write (absolute)"),
  readOnly: z.array(z.string().startsWith("/")).optional()
    .describe("Host paths the server may read only (absolute)"),
  network: z.union([
    z.literal("none"),
    z.strictObject({
      allow: z.array(z.string().min(1))
        .describe("Host names it may reach (api.example.com, *.example.com)"),
    }),
  ]).optional().describe(
    '"none" (default): no network; { "allow": [...] }: those hosts, through the egress proxy',
  ),
  limits: z.strictObject({
    processes: z.int().positive().optional().describe("Most processes and threads alive at once"),
    memoryMiB: z.int().positive().optional().describe("Most memory of the whole sandbox"),
  }).optional(),
});

/** What each field of the `sandbox` object must be, as a problem names it. */
const SANDBOX_RULES: Record<string, string> = {
  roots: "must be an array of absolute paths",
  readOnly: "must be an array of absolute paths",
  network: 'must be "none" or { "allow": ["host", ...] }',
  limits: 'must be an object with "processes" and/or "memoryMiB"',
};

/** What is wrong with a stdio server's `sandbox` setting (one sentence naming the field), if anything. */
function sandboxProblem(sandbox: unknown): string | undefined {
  if (sandbox === undefined || sandbox === "none" || sandbox === "bwrap") return undefined;
  if (sandbox === null || typeof sandbox !== "object" || Array.isArray(sandbox)) {
    return `"sandbox" must be "none", "bwrap" or an object, received ${JSON.stringify(sandbox)}`;
  }
  const issue = stdioSandboxSchema.safeParse(sandbox).error?.issues[0];
  if (issue === undefined) return undefined;
  const [field, limit] = issue.path as string[];
  if (issue.code === "unrecognized_keys") {
    return field === undefined
      ? `"sandbox.${issue.keys[0]}" is not a sandbox field (${
        Object.keys(SANDBOX_RULES).join(", ")
      })`
      : `"sandbox.limits.${issue.keys[0]}" is not a limit ("processes", "memoryMiB")`;
  }
  const value = (sandbox as Record<string, Record<string, unknown>>)[field];
  if (field === "limits" && limit !== undefined) {
    return `"sandbox.limits.${limit}" must be a positive integer, received ${
      JSON.stringify(value[limit])
    }`;
  }
  return `"sandbox.${field}" ${SANDBOX_RULES[field]}, received ${JSON.stringify(value)}`;
}
