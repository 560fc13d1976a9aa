/**
 * The sandboxed cells of the interop matrix: server-everything, server-filesystem and
 * server-memory from npm (`npx -y`), run by `toolroute serve --http` with the default sandbox
 * (no `sandbox` key: bubblewrap, a fresh home, no network beyond the npm registry for `npx`),
 * server-filesystem with its folder as its `roots` and server-memory with its memory file's
 * folder, called by an SDK client. Each cell
 * checks the server works as it does unconfined, and that it really ran in the sandbox (its
 * home is not the user's; a file outside its roots is out of reach).
 *
 * Skipped with a notice when the npm registry cannot be reached, and with the bubblewrap
 * notice when bwrap is missing; never under `CI=true`.
 *
 * @module
 */
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import { dirname } from "@std/path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { listToolsUntil } from "../_helpers/list_tools_until.ts";
import { skipWithoutBwrap } from "../_helpers/bwrap.ts";
import { startHttpServe } from "../deno/cli/_serve_process.ts";

// A cold npx start in a sandbox (a download through the egress proxy, then node's start) took more
// than the default 10 s to connect under CI's load; how long is not what these tests ask.
const COLD_START_MS = 120_000;

async function registryReachable(): Promise<boolean> {
  try {
    const response = await fetch(
      "https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory",
      { method: "HEAD", signal: AbortSignal.timeout(5_000) },
    );
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

const ci = Deno.env.get("CI") === "true";
const offline = !ci && !(await registryReachable());
if (offline) {
  addEventListener("unload", () =>
    console.error(
      "notice: tests/interop/serve_sandboxed_npm_servers_test.ts skipped: the npm registry is " +
        "unreachable (CI=true makes it fail instead)",
    ));
}

type Content = { type: string; text?: string }[];
const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as Content).map((block) => block.text ?? "").join("\n");

Deno.test({
  name:
    "serve runs server-everything, server-filesystem and server-memory from npm sandboxed by default, unchanged for an SDK client",
  ignore: offline || skipWithoutBwrap(),
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sandboxed_npm_" }));
    const files = `${dir}/files`;
    const memory = `${dir}/memory`;
    const outside = `${dir}/outside`;
    for (const folder of [files, memory, outside]) await Deno.mkdir(folder);
    await Deno.writeTextFile(`${files}/note.txt`, "first line\nsecond line\n");
    await Deno.writeTextFile(`${outside}/private.txt`, "not for the server\n");
    const config = `${dir}/toolroute.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        workspace: "files",
        expose: { builtins: [] },
        mcpServers: {
          files: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", files],
            sandbox: { roots: [files] },
            connectTimeoutMs: COLD_START_MS,
          },
          everything: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-everything"],
            connectTimeoutMs: COLD_START_MS,
          },
          memory: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-memory"],
            env: { MEMORY_FILE_PATH: `${memory}/memory.jsonl` },
            sandbox: { roots: [memory] },
            connectTimeoutMs: COLD_START_MS,
          },
        },
      }),
    );
    // Every permission, with --allow-excess (a config inside the temporary folder counts as
    // excess): the exact flags for sandboxed npm servers are tests/deno/cli/npm_servers_test.ts's
    // concern, this cell is the servers' behaviour in their sandbox.
    const flags = ["--allow-all", "--no-prompt"];
    const path = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
    await using serve = await startHttpServe(flags, ["--config", config, "--allow-excess"], {
      PATH: path,
    });
    const client = new Client({ name: "sdk-client", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
      const wanted = ["read_text_file", "list_directory", "get-env", "read_graph"];
      // A cold npx start outlasts serve's list bound: those servers arrive later.
      const tools = await listToolsUntil(client, wanted);
      const names = tools.map((tool) => tool.name);
      for (const name of wanted) {
        assert(names.includes(name), `${name} in ${names.join(", ")}\n${serve.stderr()}`);
      }

      // server-filesystem: its roots, read and written as unconfined.
      const read = await client.callTool({
        name: "read_text_file",
        arguments: { path: `${files}/note.txt` },
      });
      assertEquals(read.isError, undefined, JSON.stringify(read));
      assertEquals(read.structuredContent, { content: "first line\nsecond line\n" });
      const wrote = await client.callTool({
        name: "write_file",
        arguments: { path: `${files}/written.txt`, content: "from the server\n" },
      });
      assertEquals(wrote.isError, undefined, JSON.stringify(wrote));
      assertEquals(await Deno.readTextFile(`${files}/written.txt`), "from the server\n");
      const listed = await client.callTool({ name: "list_directory", arguments: { path: files } });
      assert(textOf(listed).includes("note.txt"), JSON.stringify(listed));

      // server-everything: it runs, with a home of its own (the sandbox's), not the user's.
      const echo = await client.callTool({ name: "echo", arguments: { message: "sandboxed" } });
      assert(textOf(echo).includes("sandboxed"), JSON.stringify(echo));
      const env = textOf(await client.callTool({ name: "get-env", arguments: {} }));
      const home = (JSON.parse(env) as Record<string, string>).HOME;
      assert(home !== undefined, env);
      assertNotEquals(home, Deno.env.get("HOME"), "its own home, not the user's");

      // server-memory: the graph is kept in its memory file, inside its roots.
      const created = await client.callTool({
        name: "create_entities",
        arguments: {
          entities: [{ name: "toolroute", entityType: "project", observations: ["sandboxed"] }],
        },
      });
      assertEquals(created.isError, undefined, JSON.stringify(created));
      const graph = textOf(await client.callTool({ name: "read_graph", arguments: {} }));
      assert(graph.includes("toolroute"), graph);
      assert(
        (await Deno.readTextFile(`${memory}/memory.jsonl`)).includes("toolroute"),
        "the memory file is on the host, in its roots",
      );
    } finally {
      await client.close();
      await serve.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
