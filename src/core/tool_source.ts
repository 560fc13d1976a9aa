import type { ResultStore } from "./result_store.ts";

/**
 * The five sources a tool can come from, highest priority first.
 *
 * - `builtin`: bash, read_file, write_file, apply_patch (from the `./deno` entry).
 * - `user_mcp`: a remote MCP server registered for one user.
 * - `local_mcp`: an in-process MCP service.
 * - `function`: a function tool made by `defineTool`.
 * - `global_mcp`: a remote MCP server shared by every request.
 */
export type SourceKind = "builtin" | "user_mcp" | "local_mcp" | "function" | "global_mcp";

/** The sources in priority order: a name from an earlier source wins over a later one. */
export const SOURCE_PRIORITY: readonly SourceKind[] = Object.freeze([
  "builtin",
  "user_mcp",
  "local_mcp",
  "function",
  "global_mcp",
]);

/**
 * The MCP server (remote) or service (local) a tool belongs to: its origin up to the first `/`;
 * `undefined` for built-in and function tools.
 */
export function serverOf(tool: RoutedTool): string | undefined {
  if (tool.source === "builtin" || tool.source === "function") return undefined;
  const slash = tool.origin.indexOf("/");
  return slash < 0 ? tool.origin : tool.origin.slice(0, slash);
}

/** A JSON Schema that describes an object, as tools take. */
export interface JsonObjectSchema {
  /** Always `"object"`. */
  type: "object";
  /** The properties of the object. */
  properties?: Record<string, unknown>;
  /** The names of the required properties. */
  required?: string[];
  /** Any other JSON Schema keyword. */
  [keyword: string]: unknown;
}

/** Progress of a long call, as MCP progress notifications carry it. */
export interface ToolProgress {
  /** Progress so far; increases with each report. */
  progress: number;
  /** The total, when known. */
  total?: number;
  /** A short human-readable message. */
  message?: string;
}

/** A tool's request for input from the person behind the call (MCP form elicitation). */
export interface ToolElicitation {
  /** What is asked, for a person to read. */
  message: string;
  /** The JSON Schema (a flat object of primitives) of the answer. */
  requestedSchema: Record<string, unknown>;
  /**
   * URL mode: a link the person opens out of band (a sign-in), shown by their client and never
   * to the model; `requestedSchema` is then not used. Relayed only to a client that declared URL
   * elicitation (the request fails otherwise), and never from an upstream server.
   */
  url?: string;
}

/** The answer to a {@linkcode ToolElicitation}. */
export interface ToolElicitationResult {
  /** `accept` with `content`, or `decline` / `cancel`. */
  action: "accept" | "decline" | "cancel";
  /** The answer, matching `requestedSchema`. */
  content?: Record<string, string | number | boolean | string[]>;
}

/** A log message a tool sends during a call (MCP `notifications/message`). */
export interface ToolLogEntry {
  /** The syslog level. */
  level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  /** The logger's name, when given. */
  logger?: string;
  /** The message: any JSON value. */
  data: unknown;
}

/** What a tool's executor receives besides its arguments. */
export interface ToolContext {
  /** Aborts when the caller aborts or the call's deadline passes. */
  readonly signal: AbortSignal;
  /** The user of the request, from the selection (never from a tool name). */
  readonly userId?: string;
  /** Receives progress reports, when the caller listens. */
  readonly onProgress?: (progress: ToolProgress) => void;
  /** The call's deadline in milliseconds, when it has one (`signal` aborts at it). */
  readonly timeoutMs?: number;
  /**
   * The call span's W3C trace context, to pass on to whatever the tool calls (MCP tools send it
   * in `_meta`); absent when nothing traces.
   */
  readonly trace?: {
    readonly traceparent: string;
    readonly tracestate?: string;
    readonly baggage?: string;
  };
  /** Asks the person behind the call for input, when the caller can relay it. */
  readonly elicit?: (
    request: ToolElicitation,
    signal: AbortSignal,
  ) => Promise<ToolElicitationResult>;
  /** Receives the tool's log messages, when the caller relays them. */
  readonly log?: (entry: ToolLogEntry) => void;
}

/** The requests of an MCP server's other features that `toolroute serve` passes on. */
export type UpstreamMethod =
  | "resources/list"
  | "resources/templates/list"
  | "resources/read"
  | "prompts/list"
  | "prompts/get"
  | "completion/complete";

/**
 * The MCP server a remote tool comes from, as `toolroute serve` reaches its resources, prompts
 * and completions: on the connection of the tool set's own user, with the server's deadline and
 * its credentials redacted from every answer.
 */
export interface UpstreamServer {
  /** The server id (as selections and `server:ID` policy rules name it). */
  readonly id: string;
  /** The tier: a user's own server, or a global one. */
  readonly source: SourceKind;
  /**
   * Sends one request to the server. A list of a feature the server does not offer answers
   * empty; any other request to it rejects.
   */
  readonly request: (
    method: UpstreamMethod,
    params: Record<string, unknown>,
    context: { readonly signal: AbortSignal; readonly userId?: string },
  ) => Promise<Record<string, unknown>>;
}

/**
 * One tool as the router routes it: what the model sees and how to run it.
 *
 * Sources build these; hosts rarely need to.
 */
export interface RoutedTool {
  /** The name the model calls (`^[A-Za-z0-9_-]{1,64}$`). */
  readonly name: string;
  /** The description the model reads. */
  readonly description: string;
  /** The JSON Schema of the arguments. */
  readonly inputSchema: JsonObjectSchema;
  /** The JSON Schema of structured results, when the tool declares one. */
  readonly outputSchema?: JsonObjectSchema;
  /** MCP tool annotations (hints such as `readOnlyHint`), when known. */
  readonly annotations?: Record<string, unknown>;
  /** A display name for people (MCP `title`), when known; the model reads `description`. */
  readonly title?: string;
  /** Icons for people's clients (MCP `icons`: `src`, `mimeType`, `sizes`, `theme`). */
  readonly icons?: readonly Record<string, unknown>[];
  /**
   * The tool's MCP `_meta`, passed on to MCP clients as it is (MCP Apps' `_meta.ui` names the
   * `ui://` resource that shows the tool's results).
   */
  readonly meta?: Record<string, unknown>;
  /**
   * The MCP server the tool comes from (remote tools): its resources, prompts and completions,
   * which `toolroute serve` offers to users whose tool set holds one of the server's tools.
   */
  readonly upstream?: UpstreamServer;
  /** The source the tool comes from. */
  readonly source: SourceKind;
  /**
   * The host's word that the tool changes nothing: set by the host (`defineTool`'s `readOnly`,
   * a server's `readOnlyTools`), by the built-in read tools, or from the `readOnlyHint` of a
   * server the host marked `trusted`. Only then may `callAll` run it alongside others and the
   * retry and cache hooks repeat or reuse it; a remote server's own hint does not count.
   */
  readonly readOnly?: boolean;
  /** The host's word that every call of this tool asks anew: no grant ever covers it. */
  readonly neverSticky?: boolean;
  /** Where the tool comes from within its source, such as `"weather/query"`. */
  readonly origin: string;
  /**
   * What policy specifiers read in a call (the built-in tools declare it): the paths the call
   * touches or the shell commands it runs, read with the same parser that runs it. Throwing
   * means the arguments cannot be read: deny and ask rules with a specifier then match and
   * allow rules do not. Without it, specifiers read the call's string arguments.
   */
  readonly policySubjects?: (args: Record<string, unknown>) => PolicySubjects;
  /**
   * Runs the tool with arguments that are already a plain JSON object.
   *
   * Returns the result (a string is used as it is; anything else is JSON-encoded) or throws;
   * a thrown `ToolError` keeps its code, anything else becomes `tool_error`.
   */
  execute(args: Record<string, unknown>, context: ToolContext): unknown;
}

/**
 * What policy specifiers read in one call, as a tool declares it (`RoutedTool.policySubjects`).
 *
 * `paths`: the paths as written (relative to the workspace or absolute); with `searched`, they
 * are folders searched, and a deny or ask rule also matches a folder holding paths it names.
 * `commands`: every simple command of a shell script, at any depth, and other readings of them.
 */
export type PolicySubjects =
  | { readonly kind: "paths"; readonly paths: readonly string[]; readonly searched?: boolean }
  | {
    readonly kind: "commands";
    readonly commands: readonly ShellCommand[];
    /**
     * Other readings of the commands, as text, that deny and ask rules also match and allow
     * rules ignore: the program by its file name (`/bin/rm x` as `rm x`), the command a wrapper
     * such as `env`, `xargs` or `bash -c` runs.
     */
    readonly variants?: readonly string[];
  };

/** One simple command of a shell script, as `bash(...)` specifiers read it. */
export interface ShellCommand {
  /** The program and its arguments after quote removal (words with expansions as written). */
  readonly words: readonly string[];
  /**
   * Whether an allow rule may cover it: a literal program name, literal arguments, no
   * assignment, redirection (but descriptor duplication such as `2>&1`), substitution or
   * expansion, and not inside a keyword, subshell, group, function or substitution.
   */
  readonly plain: boolean;
}

/** Which part of a selection a missing entry came from. */
export type SelectionKey = "builtins" | "mcpServers" | "mcpServices" | "functions";

/** A name in a selection that could not be exposed, and why. */
export interface MissingTool {
  /** The part of the selection that named it. */
  selection: SelectionKey;
  /** The name as given. */
  name: string;
  /** Why it is not exposed, in plain words. */
  reason: string;
  /**
   * For an MCP server that is down or still starting: the names its tools had when last listed,
   * which a call answers with `upstream_unavailable` naming the server (not `unknown_tool`).
   */
  tools?: string[];
}

/** What a source returns for one request. */
export interface SourceResolution {
  /** The tools found. */
  tools: RoutedTool[];
  /** The names that could not be resolved. */
  missing: MissingTool[];
}

/**
 * The built-in tool slot of the router. The `./deno` entry's `builtinTools(context)` fills it.
 *
 * The context is plain data (see {@linkcode BuiltinContext}); a request may override it.
 */
export interface BuiltinSource {
  /** The names of the built-in tools this source offers. */
  readonly names: readonly string[];
  /** The default context (its workspace is where policy path rules resolve). */
  readonly context?: { readonly workspace: string };
  /**
   * Resolves the named tools, bound to the context of this request (or the default one) and to
   * its user: what the tools keep between calls (sandbox sessions, background processes) belongs
   * to that user alone, even when two users pass equal contexts.
   */
  resolve(
    names: readonly string[],
    context?: BuiltinContext,
    request?: BuiltinRequest,
  ): SourceResolution;
  /** Stops everything the source started (background processes). */
  close?(): Promise<void>;
  /** Where results of these tools cut by a result budget are kept (else the router's store). */
  readonly resultStore?: ResultStore;
}

/** Who a built-in resolution is for. */
export interface BuiltinRequest {
  /**
   * The request's user (the principal): sessions and background processes are kept per user;
   * `undefined` is one principal of its own (requests that name no user share it).
   */
  userId?: string;
}

/** What the router asks a gateway for one request. */
export interface GatewayRequest {
  /** The server ids named in the selection. */
  serverIds: readonly string[];
  /** The request's user, whose per-user servers are considered. */
  userId?: string;
  /** Aborts connecting and listing. */
  signal?: AbortSignal;
}

/** What a gateway returns for one request. */
export interface GatewayResolution {
  /** Tools of the user's own servers (source `user_mcp`). */
  user: RoutedTool[];
  /** Tools of the global servers (source `global_mcp`). */
  global: RoutedTool[];
  /** Servers that were named but are unknown or unavailable. */
  missing: MissingTool[];
}

/** The remote MCP slot of the router. `McpGateway` fills it. */
export interface GatewaySource {
  /** Resolves the named servers for one request. */
  resolve(request: GatewayRequest): Promise<GatewayResolution>;
  /** The ids of every global server, and of the user's servers when a user is given. */
  serverIds(userId?: string): string[];
  /** Closes every connection. */
  close?(): Promise<void>;
  /**
   * The router's result budget of this source's results in characters, where the router's own
   * `resultBudget` gives none (the source passes results through whole).
   */
  readonly maxResultChars?: number;
}

/** Settings of the bash tool: off, on, or on with a sandbox. */
export type BashSetting = boolean | {
  /** `"bwrap"` confines commands with bubblewrap; `"none"` does not confine them. */
  sandbox: "bwrap" | "none";
  /** Environment variable names passed to commands, replacing the context's `env`. */
  env?: string[];
  /**
   * Bounds of the sandbox (`"bwrap"` only). Default: 512 processes, 2048 MiB of memory, 512 MiB
   * for each of `/tmp`, the home directory and `/dev/shm`, files of at most 1024 MiB, 3600 CPU
   * seconds per background process, 8192 MiB added to the workspace by the session's commands.
   */
  limits?: {
    processes?: number;
    memoryMiB?: number;
    tmpMiB?: number;
    fileMiB?: number;
    backgroundCpuSeconds?: number;
    diskMiB?: number;
  };
  /**
   * `"none"` (default): no network. `{ allow }`: only these host names, through a proxy that
   * holds at most `maxConnections` (default 64) connections of the session at once and closes one
   * idle for `idleTimeoutMs` (default 60000).
   */
  network?: "none" | { allow: string[]; maxConnections?: number; idleTimeoutMs?: number };
};

/**
 * The plain-data context that confines the built-in tools of one request.
 *
 * The `./deno` entry enforces it and maps it onto Deno's permission flags.
 */
export interface BuiltinContext {
  /** Absolute path of the workspace: read and write. */
  workspace: string;
  /** Absolute paths that may be read but not written. Default: none. */
  readOnlyRoots?: string[];
  /** Most characters `read_file` returns per call. Default: 12000. */
  readMaxChars?: number;
  /** Deadline of a `bash` command, in milliseconds. Default: 30000. */
  commandTimeoutMs?: number;
  /** Most characters of command output per call, head and tail kept. Default: 120000. */
  outputMaxChars?: number;
  /** Most characters kept in a background process's log. Default: 12000. */
  processLogChars?: number;
  /** Whether `bash` is offered, and how it is confined. Default: `false`. */
  bash?: BashSetting;
  /**
   * Paths inside the workspace that writes refuse (names without a slash at any depth, `./name`
   * at the top). Default: `[".git"]`. Git directories are refused whatever this says; add what
   * your own tools run by themselves (`.envrc`, `.vscode`, `.github`, ...: `docs/security.md`).
   */
  protectedPaths?: string[];
  /** Environment variable names passed to commands. Default: PATH, HOME, LANG, TERM. */
  env?: string[];
  /**
   * Allow a workspace that is `/`, a top-level system directory or a home directory itself
   * (refused otherwise). Default: `false`.
   */
  allowBroadRoots?: boolean;
}
