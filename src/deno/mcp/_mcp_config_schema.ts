import * as z from "zod";

const stringMap = z.record(z.string(), z.string());

/** One server entry: remote (`url`) or stdio (`command`), as Claude Desktop and others write it. */
const serverSchema = z.object({
  url: z.string().min(1).optional(),
  headers: stringMap.optional(),
  transport: z.enum(["http", "sse"]).optional(),
  type: z.enum(["http", "sse", "streamable-http", "streamableHttp", "stdio"]).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().min(1).optional(),
}).superRefine((server, context) => {
  if (typeof server !== "object" || server === null) return;
  const remote = server.url !== undefined;
  const stdio = server.command !== undefined;
  if (remote === stdio) {
    context.addIssue({
      code: "custom",
      message: remote
        ? 'give either "url" (remote) or "command" (stdio), not both'
        : 'give "url" (remote server) or "command" (stdio server)',
    });
    return;
  }
  const other = remote ? ["command", "args", "env", "cwd"] : ["headers", "transport"];
  for (const key of other) {
    if (server[key as keyof typeof server] !== undefined) {
      context.addIssue({
        code: "custom",
        path: [key],
        message: `"${key}" does not apply to a ${remote ? "remote" : "stdio"} server`,
      });
    }
  }
  if (server.type !== undefined && (server.type === "stdio") !== stdio) {
    context.addIssue({
      code: "custom",
      path: ["type"],
      message: `"type" is "${server.type}" but the server has ${remote ? '"url"' : '"command"'}`,
    });
  }
}, { when: () => true }); // Also when fields are invalid: all problems are reported at once.

/** The file: `{ "mcpServers": { id: server } }`; other top-level keys are ignored. */
export const mcpConfigFileSchema = z.object({
  mcpServers: z.record(z.string().min(1), serverSchema),
});

/** A server entry as the file holds it, before `${VAR}` expansion. */
export type RawMcpServer = z.output<typeof serverSchema>;

/**
 * Formats zod issues as one line each, `mcpServers.github.url: expected string`.
 *
 * @param issues The issues.
 * @returns The lines.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
}

function jsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path.map((key, index) => {
    if (typeof key === "number") return `[${key}]`;
    const name = String(key);
    const plain = /^[A-Za-z_$][\w$]*$/.test(name);
    return plain ? `${index === 0 ? "" : "."}${name}` : `[${JSON.stringify(name)}]`;
  }).join("");
}
