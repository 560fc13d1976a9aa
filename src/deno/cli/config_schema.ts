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
  maxResultChars: positiveInt.optional().describe("Most characters of any tool result"),
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
});

/** The zod schema of `toolroute.json`: unknown keys anywhere are errors. */
export const toolrouteConfigSchema = z.strictObject({
  $schema: z.string().optional().describe("The JSON Schema of this file, for editors"),
  workspace: nonEmpty.optional()
    .describe("The workspace, read and write; relative to this file. Default: this file's folder"),
  readOnlyRoots: z.array(nonEmpty).optional().describe("Folders that may be read but not written"),
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
