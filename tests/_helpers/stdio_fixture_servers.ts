/**
 * Stdio servers for the sandbox tests, written into a temporary folder with the imports of
 * `tests/_fixtures/stdio_server.ts` (`writeFixtureServer`): one that reads and writes files and
 * reads variables (tools `read`, `write`, `list`, `env`, each answering `failed: <error>` when
 * refused), with its config; and one that fetches a URL (`writeFetcher`).
 *
 * @module
 */
import { dirname, fromFileUrl, join } from "@std/path";
import type { McpStdioServerConfig } from "../../src/core/mcp/mod.ts";
import { hostServerPaths } from "../../src/deno/sandbox/server_paths.ts";

const FIXTURE = fromFileUrl(new URL("../_fixtures/stdio_server.ts", import.meta.url));
const REPO = fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, "");

/**
 * Writes a stdio server: the fixture's imports (`McpServer`, `z`, `DenoStdioServerTransport`),
 * then `tools` (code registering tools on `server`), then the connect.
 *
 * @param path Where to write it.
 * @param name The server's name.
 * @param tools The code that registers its tools.
 */
export async function writeFixtureServer(path: string, name: string, tools: string) {
  const imports = (await Deno.readTextFile(FIXTURE)).split("const server = new McpServer")[0]
    .replaceAll('"../../src/', `"${REPO}/src/`);
  await Deno.writeTextFile(
    path,
    `${imports}
const server = new McpServer({ name: ${JSON.stringify(name)}, version: "1.0.0" });
${tools}
await server.connect(new DenoStdioServerTransport());
`,
  );
}

/**
 * Writes a stdio server whose one tool, `fetch`, fetches a URL and says what came back (its
 * status and body, or `failed: <why>`).
 *
 * @param path Where to write it.
 */
export async function writeFetcher(path: string): Promise<void> {
  await writeFixtureServer(
    path,
    "fetcher",
    `server.registerTool("fetch", {
  description: "fetches a URL",
  inputSchema: z.object({ url: z.string() }),
}, async ({ url }) => {
  let text: string;
  try {
    const response = await fetch(url);
    text = response.status + " " + await response.text();
  } catch (error) {
    text = "failed: " + (error instanceof Error ? error.message : String(error));
  }
  return { content: [{ type: "text", text }] };
});`,
  );
}

/** A server (the fixture's imports) that reads and writes files and reads variables. */
async function writeFilesServer(path: string): Promise<void> {
  await writeFixtureServer(
    path,
    "files",
    `
const said = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const tried = (run: () => string) => {
  try {
    return said(run());
  } catch (error) {
    return said("failed: " + (error as Error).name);
  }
};
server.registerTool("read", {
  description: "reads a file",
  inputSchema: z.object({ path: z.string() }),
}, ({ path }) => tried(() => Deno.readTextFileSync(path)));
server.registerTool("write", {
  description: "writes a file",
  inputSchema: z.object({ path: z.string(), text: z.string() }),
}, ({ path, text }) => tried(() => (Deno.writeTextFileSync(path, text), "written")));
server.registerTool("list", {
  description: "lists a folder",
  inputSchema: z.object({ path: z.string() }),
}, ({ path }) => tried(() => [...Deno.readDirSync(path)].map((entry) => entry.name).sort().join(",")));
server.registerTool("env", {
  description: "reads a variable",
  inputSchema: z.object({ name: z.string() }),
}, ({ name }) => said(Deno.env.get(name) ?? "(unset)"));`,
  );
}

/** A folder holding the files server and the config path its servers are named after. */
export async function filesSetup(): Promise<{ dir: string; scope: string; server: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_scope_" }));
  const server = join(dir, "files.ts");
  await writeFilesServer(server);
  return { dir, scope: join(dir, "mcp.json"), server };
}

export const filesServer = (
  server: string,
  sandbox: Exclude<McpStdioServerConfig["sandbox"], "none" | "bwrap" | undefined>,
): McpStdioServerConfig => ({
  command: Deno.execPath(),
  args: ["run", "--frozen", "--config", join(REPO, "deno.json"), "-A", server],
  sandbox: { ...sandbox, readOnly: [REPO, dirname(server), ...sandbox.readOnly ?? []] },
});

/** Removes the servers' sockets and package caches (`hostServerPaths`). */
export async function removePaths(scope: string, ids: string[]): Promise<void> {
  for (const serverId of ids) {
    const paths = hostServerPaths({ scope, serverId });
    if (paths.socketFolder !== undefined) {
      await Deno.remove(paths.socketFolder, { recursive: true }).catch(() => {});
    }
    if (paths.cache !== undefined) {
      await Deno.remove(paths.cache, { recursive: true }).catch(() => {});
    }
  }
}
