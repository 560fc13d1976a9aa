/**
 * The schemas of MCP config files (`{ "mcpServers": { id: server } }`, the Claude Desktop format),
 * shared by `loadMcpConfig` and the command line's `toolroute.json`.
 *
 * @module
 */

import * as z from "zod";
import { mcpProtocolSchema, stdioSandboxSchema } from "../../core/mcp/mcp_server_config.ts";

const stringMap = z.record(z.string(), z.string());

/**
 * One server entry: remote (`url`) or stdio (`command`), as Claude Desktop and others write it.
 * Unknown keys are errors (a misspelt `header` must not silently drop credentials).
 */
const serverSchema = z.strictObject({
  url: z.string().min(1).optional().describe("The MCP endpoint of a remote server (http or https)"),
  headers: stringMap.optional().describe("Headers sent to this server only; ${VAR} is expanded"),
  oauth: z.strictObject({
    clientId: z.string().min(1).describe("The client id registered with the authorization server"),
    clientSecret: z.string().optional().describe("Its secret; ${VAR} is expanded"),
    grant: z.enum(["authorization_code", "client_credentials"]).optional().describe(
      '"client_credentials": one service account shared by every user (explicitly); default "authorization_code": each user signs in',
    ),
    issuer: z.string().min(1).optional()
      .describe("The authorization server the client is registered with (its issuer URL)"),
  }).optional().describe(
    "The OAuth client of this server, registered ahead; without it a server behind OAuth is authorized per user",
  ),
  transport: z.enum(["http", "sse"]).optional()
    .describe('"http" (Streamable HTTP) or "sse"; default: Streamable HTTP, falling back to SSE'),
  protocol: mcpProtocolSchema.optional().describe(
    '"auto" (default): the 2026-07-28 revision where the server offers it (asked once with server/discover), else the 2025 era; "2025": always initialize and sessions; "2026-07-28": that revision only',
  ),
  connectTimeoutMs: z.number().int().min(1).optional().describe(
    "Deadline of connecting to this server and listing its tools, in milliseconds; raise it for a server that starts slowly (default 10000; 120000 for a first npx/uvx/bunx/deno run start)",
  ),
  type: z.enum(["http", "sse", "streamable-http", "streamableHttp", "stdio"]).optional()
    .describe("The transport as other clients write it; optional"),
  command: z.string().min(1).optional().describe("The program of a stdio server"),
  args: z.array(z.string()).optional().describe("Its arguments, taken literally"),
  env: stringMap.optional().describe("Environment variables of the child; ${VAR} is expanded"),
  secretEnv: z.array(z.string().min(1)).optional().describe(
    "Names in env whose values are secrets, redacted from results; values from ${VAR} and names such as *_TOKEN, *_KEY, *_SECRET, *PASSWORD are secrets without being listed",
  ),
  secretArgs: z.array(z.int().min(0)).optional().describe(
    "Indexes in args whose values are secrets, redacted from results (the argument, each word of it, and what follows its first =)",
  ),
  cwd: z.string().min(1).optional().describe("The child's working directory"),
  sandbox: z.union([
    z.enum(["none", "bwrap"]),
    stdioSandboxSchema,
  ]).optional().describe(
    'Where a stdio server runs: "bwrap" (default where bubblewrap is installed: a fresh home, its own /tmp, no network, its program, runtime and package caches read-only), an object widening or bounding that sandbox, or "none" (a plain process of the user)',
  ),
  trusted: z.boolean().optional().describe(
    "true: this server's readOnlyHint annotations count (parallel calls in callAll, retries, the result cache); default false",
  ),
  readOnlyTools: z.array(z.string().min(1)).optional().describe(
    "The server's own names of tools you declare read-only, whatever the server says",
  ),
  disabled: z.boolean().optional().describe(
    "true leaves the server out (as Cursor and Cline write it)",
  ),
  autoApprove: z.array(z.string()).optional()
    .describe(
      "Another client's approval list (Cline); accepted and ignored: toolroute exposes by selection",
    ),
  alwaysAllow: z.array(z.string()).optional()
    .describe(
      "Another client's approval list (Roo); accepted and ignored: toolroute exposes by selection",
    ),
}).superRefine((server, context) => {
  if (typeof server !== "object" || server === null) return;
  const issue = (message: string, path?: (string | number)[]) =>
    context.addIssue({ code: "custom", message, ...(path === undefined ? {} : { path }) });
  const remote = server.url !== undefined;
  const stdio = server.command !== undefined;
  if (remote === stdio) {
    return issue(
      remote
        ? 'give either "url" (remote) or "command" (stdio), not both'
        : 'give "url" (remote server) or "command" (stdio server)',
    );
  }
  const other = remote
    ? ["command", "args", "env", "secretEnv", "secretArgs", "cwd", "sandbox"]
    : ["headers", "transport", "oauth"];
  for (const key of other) {
    if (server[key as keyof typeof server] !== undefined) {
      issue(`"${key}" does not apply to a ${remote ? "remote" : "stdio"} server`, [key]);
    }
  }
  for (const [index, name] of (stdio ? server.secretEnv ?? [] : []).entries()) {
    if (server.env?.[name] === undefined) {
      issue(`"${name}" is not a name in "env"`, ["secretEnv", index]);
    }
  }
  for (const [index, at] of (stdio ? server.secretArgs ?? [] : []).entries()) {
    if (at >= (server.args?.length ?? 0)) {
      issue(`${at} is not an index in "args"`, ["secretArgs", index]);
    }
  }
  if (server.type !== undefined && (server.type === "stdio") !== stdio) {
    issue(
      `"type" is "${server.type}" but the server has ${remote ? '"url"' : '"command"'}`,
      ["type"],
    );
  }
}, { when: () => true }); // Also when fields are invalid: all problems are reported at once.

/** The file: `{ "mcpServers": { id: server } }`; other top-level keys are ignored. */
export const mcpConfigFileSchema = z.object({
  mcpServers: z.record(z.string().min(1), serverSchema),
});

/** A server entry as the file holds it, before `${VAR}` expansion. */
export type RawMcpServer = z.output<typeof serverSchema>;

/** Formats zod issues as one line each, `mcpServers.github.url: expected string`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
}

/**
 * Formats a path into a JSON value the way the error messages show it: `mcpServers.github.url`,
 * `mcpServers["my server"].env`, `args[0]`.
 *
 * @returns The path, `(root)` when empty.
 */
export function jsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path.map((key, index) => {
    if (typeof key === "number") return `[${key}]`;
    const name = String(key);
    const plain = /^[A-Za-z_$][\w$]*$/.test(name);
    return plain ? `${index === 0 ? "" : "."}${name}` : `[${JSON.stringify(name)}]`;
  }).join("");
}
