/**
 * Real third-party servers from npm (`@modelcontextprotocol/server-filesystem` and
 * `@modelcontextprotocol/server-everything`, run with `npx -y`) through `toolroute serve --http`
 * with exactly the flags `toolroute flags` prints, called by an SDK client: output schemas with
 * plain-text results, images and structured content must reach the client as the servers sent
 * them. Skipped with a notice when the npm registry cannot be reached, never under `CI=true`.
 *
 * @module
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { listToolsUntil } from "../../_helpers/list_tools_until.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { dirname } from "@std/path";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { hostServerPaths } from "../../../src/deno/sandbox/server_paths.ts";
import { exactFlags, startHttpServe } from "./_serve_process.ts";

// A cold npx start in a sandbox (a download through the egress proxy, then node's start) took more
// than the default 10 s to connect under CI's load; how long is not what these tests ask.
const COLD_START_MS = 120_000;

async function registryReachable(): Promise<boolean> {
  try {
    const response = await fetch(
      "https://registry.npmjs.org/@modelcontextprotocol%2fserver-everything",
      {
        method: "HEAD",
        signal: AbortSignal.timeout(5_000),
      },
    );
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

const ci = Deno.env.get("CI") === "true";
const skip = !ci && !(await registryReachable());
if (skip) {
  addEventListener("unload", () =>
    console.error(
      "notice: tests/deno/cli/npm_servers_test.ts skipped: the npm registry is unreachable " +
        "(CI=true makes it fail instead)",
    ));
}

Deno.test({
  name: "serve carries server-filesystem and server-everything from npm to an SDK client unchanged",
  // server-filesystem's config asks for a sandbox (its roots): without bubblewrap it never starts.
  ignore: skip || skipWithoutBwrap(),
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_npm_" }));
    await Deno.writeTextFile(`${dir}/note.txt`, "first line\nsecond line\n");
    const config = `${dir}/mcp.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        mcpServers: {
          // Sandboxed (the default where bubblewrap is installed): npx reaches its registry
          // through the egress proxy, whose socket the exact flags name; server-filesystem gets
          // its folder as a root.
          files: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", dir],
            sandbox: { roots: [dir] },
            connectTimeoutMs: COLD_START_MS,
          },
          everything: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-everything"],
            connectTimeoutMs: COLD_START_MS,
          },
        },
      }),
    );
    const flags = await exactFlags(["--config", config, "--http", "127.0.0.1:0"]);
    // An mcp.json asks for no built-in: no write access to its folder but the files server's
    // root, and its lock file (so that the same flags run `toolroute lock`); each server's own
    // package cache and the folder of the proxy sockets.
    const paths = ["files", "everything"].map((serverId) =>
      hostServerPaths({ scope: config, serverId })
    );
    const written = flags.find((flag) => flag.startsWith("--allow-write="))!.split("=")[1];
    assertEquals(
      written.split(",").sort(),
      [dir, paths[0].cache!, paths[1].cache!, paths[0].socketFolder!].sort(),
      flags.join(" "),
    );
    const path = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
    await using serve = await startHttpServe(flags, ["--config", config], { PATH: path });
    const client = new Client({ name: "sdk-client", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
      // The servers' own read_file/write_file, not toolroute's built-ins.
      const wanted = ["read_text_file", "list_directory", "write_file", "echo"];
      // A cold npx start outlasts serve's list bound: those servers arrive later.
      const tools = await listToolsUntil(client, wanted);
      const names = tools.map((tool) => tool.name);
      for (const name of wanted) {
        assert(names.includes(name), `${name} in ${names.join(", ")}\n${serve.stderr()}`);
      }
      const readTool = tools.find((tool) => tool.name === "read_text_file")!;
      assert(readTool.outputSchema !== undefined, "read_text_file advertises its output schema");
      // The SDK client checks structuredContent against the schema: plain text plus its copy.
      const read = await client.callTool({
        name: "read_text_file",
        arguments: { path: `${dir}/note.txt` },
      });
      assertEquals(read.isError, undefined, JSON.stringify(read));
      assertEquals(read.content, [{ type: "text", text: "first line\nsecond line\n" }]);
      assertEquals(read.structuredContent, { content: "first line\nsecond line\n" });
      const listed = await client.callTool({ name: "list_directory", arguments: { path: dir } });
      assert(JSON.stringify(listed.content).includes("note.txt"), JSON.stringify(listed));
      const imageTool = tools.find((tool) => /image/i.test(tool.name));
      assert(imageTool !== undefined, `an image tool in ${names.join(", ")}`);
      const image = await client.callTool({ name: imageTool!.name, arguments: {} });
      const block = (image.content as { type: string; data?: string; mimeType?: string }[])
        .find((entry) => entry.type === "image");
      assert(block !== undefined && block.data!.length > 100, JSON.stringify(image).slice(0, 300));
      assertEquals(block!.mimeType, "image/png");
    } finally {
      await client.close();
      await serve.stop();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(paths[0].socketFolder!, { recursive: true }).catch(() => {});
      for (const each of paths) await Deno.remove(each.cache!, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a sandboxed npx server's second cold start needs no registry: its own package cache kept the package",
  ignore: skip || skipWithoutBwrap(),
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_npx_cache_" }));
    const scope = `${dir}/mcp.json`;
    const paths = hostServerPaths({ scope, serverId: "memory" });
    const memory = (sandbox: McpStdioServerConfig["sandbox"]): McpStdioServerConfig => ({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-memory"],
      sandbox,
      connectTimeoutMs: COLD_START_MS,
    });
    const toolNames = async (gateway: ReturnType<typeof createDenoGateway>) => {
      const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ["memory"] });
      assertEquals(tools.missing, [], JSON.stringify(gateway.status()));
      return JSON.stringify(tools.tools);
    };
    try {
      {
        // The first start downloads the package from the registry, through the egress proxy.
        await using first = createDenoGateway({
          servers: { memory: memory("bwrap") },
          sandboxScope: scope,
        });
        assertStringIncludes(await toolNames(first), "create_entities");
      }
      // npx kept the package (and the registry's answers) in the server's own cache.
      const kept = [...Deno.readDirSync(`${paths.cache!}/npm`)].map((entry) => entry.name);
      assert(kept.includes("_npx") && kept.includes("_cacache"), kept.join(","));
      // A second cold start with no network at all (no proxy, no route out) still starts: it
      // cannot have contacted the registry.
      await using second = createDenoGateway({
        servers: { memory: memory({ network: "none" }) },
        sandboxScope: scope,
      });
      assertStringIncludes(await toolNames(second), "create_entities");
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(paths.cache!, { recursive: true }).catch(() => {});
      if (paths.socketFolder !== undefined) {
        await Deno.remove(paths.socketFolder, { recursive: true }).catch(() => {});
      }
    }
  },
});
