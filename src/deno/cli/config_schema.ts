import * as z from "zod";
import { mcpConfigFileSchema } from "../mcp/mcp_config_schema.ts";

/** The gateway's server entry schema, shared so both files accept the same servers. */
const mcpServers = mcpConfigFileSchema.shape.mcpServers;

const positiveInt = z.int().positive();
const nonEmpty = z.string().min(1);
const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected a tool name");

const bashSchema = z.union([
  z.boolean(),
  z.strictObject({
    sandbox: z.enum(["bwrap", "none"]).describe(
      '"bwrap" confines commands with bubblewrap; "none" runs them as the OS user',
    ),
    env: z.array(nonEmpty).optional().describe("Environment variables passed to commands"),
    limits: z.strictObject({
      processes: positiveInt.optional().describe("Most processes of the sandbox; default 512"),
      memoryMiB: positiveInt.optional().describe("Most memory of the sandbox; default 2048"),
      tmpMiB: positiveInt.optional().describe(
        "Size of each of the sandbox's /tmp, home and /dev/shm (tmpfs); default 512",
      ),
      fileMiB: positiveInt.optional().describe(
        "Largest file a command may write (RLIMIT_FSIZE); default 1024",
      ),
      backgroundCpuSeconds: positiveInt.optional().describe(
        "CPU seconds of each background process (RLIMIT_CPU); default 3600",
      ),
      diskMiB: positiveInt.optional().describe(
        "Most MiB the sandbox's commands may add to the workspace in all; default 8192",
      ),
    }).optional().describe('Bounds of the sandbox (sandbox "bwrap" only)'),
    network: z.union([
      z.literal("none"),
      z.strictObject({
        allow: z.array(nonEmpty).describe("Host names, or *.example.com"),
        maxConnections: positiveInt.optional().describe(
          "Most connections of the sandbox through the proxy at once; default 64",
        ),
        idleTimeoutMs: positiveInt.optional().describe(
          "A proxied connection idle this long is closed; default 60000",
        ),
      }),
    ]).optional().describe('"none" (default), or host names reachable through a proxy'),
  }),
]).describe("Whether the bash tool is offered, and how commands are confined");

const limitsSchema = z.strictObject({
  readMaxChars: positiveInt.optional().describe("Most characters read_file returns per call"),
  commandTimeoutMs: positiveInt.optional().describe("Deadline of a bash command"),
  outputMaxChars: positiveInt.optional().describe(
    "Most characters of command output (and of glob and grep results) per call",
  ),
  processLogChars: positiveInt.optional().describe("Most characters kept of a background log"),
  callTimeoutMs: positiveInt.optional().describe("Deadline of every tool call"),
  listWaitMs: positiveInt.optional().describe(
    "Longest wait of a tool list (serve's tools/list) for MCP servers still starting; the others' tools are listed, and a list_changed notification follows when one is ready; default 3000 for serve (call, tools and lock wait for every server)",
  ),
  maxResultChars: positiveInt.optional().describe(
    "Most characters of any tool result in the context; the whole is kept for read_result",
  ),
});

const exposeSchema = z.strictObject({
  builtins: z.array(
    z.enum(["bash", "read_file", "write_file", "apply_patch", "edit", "glob", "grep"]),
  ).optional()
    .describe("Built-in tools to expose; default: every built-in the context turns on"),
  mcpServers: z.array(nonEmpty).optional()
    .describe("Ids of global MCP servers to expose; default: all of them"),
  mcpServices: z.array(nonEmpty).optional()
    .describe("Local MCP services (from modules) to expose; default: all of them"),
  functions: z.array(toolName).optional()
    .describe("Function tools (from modules) to expose; default: all of them"),
  defer: z.union([
    z.boolean(),
    z.strictObject({
      keep: z.array(toolName).optional().describe("Tools listed from the start, in this order"),
    }),
  ]).optional().describe(
    "List only the kept tools and search_tools; each client's searches list the others for it",
  ),
});

const userSchema = z.strictObject({
  id: nonEmpty.describe("The user id the token stands for"),
  mcpServers: mcpServers.optional().describe("This user's own MCP servers (Claude Desktop style)"),
});

const httpSchema = z.strictObject({
  allowedHosts: z.array(nonEmpty).optional()
    .describe("Host header values accepted; default: the loopback names"),
  allowedOrigins: z.array(nonEmpty).optional()
    .describe("Origin header values accepted; default: loopback origins"),
  stateless: z.boolean().optional().describe("Serve without sessions"),
  maxConnections: positiveInt.optional()
    .describe("Most connections open at once; more get 503; default 256"),
  headTimeoutMs: positiveInt.optional()
    .describe("A request head must arrive whole within this; default 10000"),
  maxConnectionsPerUser: positiveInt.optional()
    .describe("Most connections open at once with one bearer token; more get 429; default 64"),
});

const ruleList = (what: string) =>
  z.array(nonEmpty).optional().describe(
    `Rules that ${what}: NAME or NAME(SPECIFIER), such as "bash(git status*)", "delete_*", "write_file(src/**)", "source:global_mcp" or "server:github"`,
  );

const policyLimitSchema = z.strictObject({
  match: nonEmpty.describe(
    'The calls counted: a rule as in "deny", such as "send_email", "server:billing" or "bash(git push*)"',
  ),
  max: positiveInt.describe("Most calls admitted per window (or per run)"),
  windowMs: positiveInt.optional().describe(
    "The window in milliseconds (aligned to the epoch); absent: the window is the run (the call's runId)",
  ),
  per: z.enum(["user", "router"]).optional()
    .describe(
      'Whose calls share one count: each user\'s apart ("user", the default) or everyone\'s ("router")',
    ),
});

const policySchema = z.strictObject({
  allow: ruleList("let a call run"),
  ask: ruleList("make a call wait for a person's approval"),
  deny: ruleList("refuse a call (a rule without specifier also hides the tool)"),
  default: z.enum(["allow", "ask", "deny"]).optional()
    .describe('What applies when no rule matches; default "allow"'),
  neverSticky: ruleList("always ask anew: an answer for the session or always makes no grant"),
  limits: z.array(policyLimitSchema).optional().describe(
    "Most calls per window or per run of the tools a rule matches; a call over a limit runs nothing and returns rate_limited with the time to retry",
  ),
}).describe("Allow, ask and deny rules over the served tools: deny first, then ask, then allow");

/** The zod schema of `toolroute.json`: unknown keys anywhere are errors. */
export const toolrouteConfigSchema = z.strictObject({
  $schema: z.string().optional().describe("The JSON Schema of this file, for editors"),
  workspace: nonEmpty.optional()
    .describe(
      'The workspace, read and write; relative to this file. Turns the built-in tools on. "{user}" as a folder name (such as "work/{user}") gives each user their own folder, created on first use',
    ),
  sharedWorkspace: z.boolean().optional()
    .describe(
      'Let several users share one workspace (no "{user}" in it); serve refuses several users without either. Each user still has their own sandbox',
    ),
  readOnlyRoots: z.array(nonEmpty).optional().describe("Folders that may be read but not written"),
  allowBroadRoots: z.boolean().optional()
    .describe("Allow a workspace that is /, a top-level system folder or a home folder itself"),
  protectedPaths: z.array(nonEmpty).optional()
    .describe('Paths inside the workspace that writes refuse; default [".git"]'),
  env: z.array(nonEmpty).optional()
    .describe("Environment variables passed to bash commands; default PATH, HOME, LANG, TERM"),
  bash: bashSchema.optional(),
  limits: limitsSchema.optional(),
  modules: z.array(nonEmpty).optional()
    .describe("Modules whose exported defineTool/defineMcpService values are registered"),
  expose: exposeSchema.optional().describe("What the served tool set contains"),
  mcpServers: mcpServers.optional().describe("Global MCP servers (Claude Desktop style)"),
  users: z.record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected a variable name"),
    userSchema,
  )
    .optional()
    .describe("Per-user servers, keyed by the environment variable that holds the user's token"),
  http: httpSchema.optional().describe("Settings of serve --http"),
  policy: policySchema.optional(),
}).describe("toolroute configuration");

/** A config as the file holds it, after validation. */
export type ToolrouteConfigFile = z.output<typeof toolrouteConfigSchema>;

/**
 * The JSON Schema of `toolroute.json`, generated from the zod schema (`toolroute.schema.json`).
 *
 * @returns The JSON Schema.
 */
export function toolrouteJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(toolrouteConfigSchema, { io: "input", unrepresentable: "any" }),
    $id: "https://jsr.io/@toolroute/toolroute/toolroute.schema.json",
    title: "toolroute.json",
  };
}
