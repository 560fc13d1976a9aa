/**
 * toolroute against the file server most MCP users run today, without the sandbox: the same
 * SDK client (over `DenoStdioClientTransport`) starts `toolroute serve --stdio` and
 * `@modelcontextprotocol/server-filesystem` (Node), times the start to the first `tools/list`
 * answered, then 50 calls reading the same small file (`read_file` against `read_text_file`).
 * Prints medians and p99, one run. Ratios only: the machine is shared.
 *
 * Run: deno run --no-prompt -A bench/file_server_bench.ts <path to server-filesystem's dist/index.js>
 * (install it with `npm install @modelcontextprotocol/server-filesystem` in a scratch folder).
 *
 * @module
 */
import { Client } from "../src/core/mcp/mcp_sdk.ts";
import { DenoStdioClientTransport } from "../src/deno/mcp/stdio_client_transport.ts";

const serverFilesystem = Deno.args[0];
if (serverFilesystem === undefined) {
  throw new TypeError("Pass the path of @modelcontextprotocol/server-filesystem's dist/index.js");
}
const CALLS = 50;
const STARTS = 5;
const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_fsrv_" }));
await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\nworld\n".repeat(20));
const cliPath = new URL("../src/deno/cli/mod.ts", import.meta.url).pathname;
const config = new URL("../deno.json", import.meta.url).pathname;

interface Server {
  name: string;
  command: string;
  args: string[];
  tool: string;
  arguments: Record<string, unknown>;
}

const servers: Server[] = [
  {
    name: "toolroute serve --stdio (read_file)",
    command: Deno.execPath(),
    args: [
      "run",
      "--no-prompt",
      `--config=${config}`,
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      cliPath,
      "serve",
      "--stdio",
      "--workspace",
      workspace,
    ],
    tool: "read_file",
    arguments: { path: "hello.txt" },
  },
  {
    name: "server-filesystem, Node (read_text_file)",
    command: "node",
    args: [serverFilesystem, workspace],
    tool: "read_text_file",
    arguments: { path: `${workspace}/hello.txt` },
  },
];

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function connect(server: Server): Promise<{ client: Client; startMs: number }> {
  const started = performance.now();
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new DenoStdioClientTransport({ command: server.command, args: server.args }),
  );
  await client.listTools();
  return { client, startMs: performance.now() - started };
}

console.log(`one run: ${STARTS} starts and ${CALLS} calls each, medians / p99\n`);
console.log("| server | start to first tools/list | one read call |");
console.log("|---|---|---|");
for (const server of servers) {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const { client, startMs } = await connect(server);
    starts.push(startMs);
    await client.close();
  }
  const { client } = await connect(server);
  for (let i = 0; i < 5; i++) {
    await client.callTool({ name: server.tool, arguments: server.arguments });
  }
  const calls: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const result = await client.callTool({ name: server.tool, arguments: server.arguments });
    calls.push(performance.now() - started);
    if (result.isError) throw new Error(`${server.name}: ${JSON.stringify(result.content)}`);
  }
  await client.close();
  starts.sort((a, b) => a - b);
  calls.sort((a, b) => a - b);
  console.log(
    `| ${server.name} | ${ms(at(starts, 0.5))} / ${ms(at(starts, 0.99))} | ${
      ms(at(calls, 0.5))
    } / ${ms(at(calls, 0.99))} |`,
  );
}
await Deno.remove(workspace, { recursive: true });
