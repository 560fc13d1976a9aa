/**
 * The main job: `toolroute serve --http` on a free loopback port with a temporary workspace,
 * run as a child process with exactly the flags `toolroute flags` prints; an MCP SDK client lists
 * and calls its tools, a call to an unexposed tool is refused, then the server stops.
 *
 * Run alone: `deno run --allow-read --allow-write --allow-run --allow-net=127.0.0.1 --allow-env examples/demo_serve.ts`
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { startServeChild } from "./_serve_child.ts";

/**
 * Runs the serve demo.
 *
 * @param print Receives each line of output.
 */
export async function demoServe(print: (line: string) => void): Promise<void> {
  const workspace = await Deno.makeTempDir({ prefix: "toolroute_demo_serve_" });
  await Deno.writeTextFile(`${workspace}/notes.md`, "# Notes\nShip the CLI.\n");
  const serve = await startServeChild(["--workspace", workspace]);
  const client = new Client({ name: "demo", version: "1.0.0" });
  try {
    print(`deno run ${serve.flags.join(" ")} src/deno/cli/mod.ts serve --http 127.0.0.1:0`);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { Authorization: `Bearer ${serve.token}` } },
      }),
    );
    const { tools } = await client.listTools();
    const startup = performance.now() - serve.spawnedAt;
    print(
      `serving at ${serve.url}; tools/list answered ${
        Math.round(startup)
      } ms after the process started`,
    );
    print(`tools: ${tools.map((tool: { name: string }) => tool.name).join(", ")}`);
    const read = await client.callTool({ name: "read_file", arguments: { path: "notes.md" } });
    print(`read_file notes.md -> ${JSON.parse(text(read)).content.trim().replace("\n", " / ")}`);
    const written = await client.callTool({
      name: "write_file",
      arguments: { path: "todo.txt", content: "demo\n" },
    });
    print(`write_file todo.txt -> ${text(written)}`);
    const escape = await client.callTool({ name: "read_file", arguments: { path: "/etc/passwd" } });
    print(`read_file /etc/passwd -> error: ${text(escape)}`);
    const bash = await client.callTool({ name: "bash", arguments: { command: "id" } });
    print(`bash (not exposed) -> error: ${text(bash).split(". ")[0]}`);
  } finally {
    await client.close();
    const code = await serve.stop();
    print(`server stopped (exit code ${code})`);
    await Deno.remove(workspace, { recursive: true });
  }
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

if (import.meta.main) await demoServe((line) => console.log(line));
