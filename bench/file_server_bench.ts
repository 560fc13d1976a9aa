/**
 * toolroute against the file server most MCP users run today, without the sandbox: the same
 * SDK client (over `DenoStdioClientTransport`) starts `toolroute serve --stdio` and
 * `@modelcontextprotocol/server-filesystem` (Node), times the start to the first `tools/list`
 * answered, then calls reading the same small file (`read_file` against `read_text_file`) and
 * writing one (`write_file` against `write_file`). Interleaved: the two servers alternate start
 * by start and call by call (the order flips each round), so load on the shared machine falls
 * on both alike. Prints medians and p99 and their ratios, one run.
 *
 * Run: deno run --no-prompt -A --config bench/deno.json bench/file_server_bench.ts
 *   <path to server-filesystem's dist/index.js> [calls, default 50]
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
const CALLS = Number(Deno.args[1] ?? 50);
const STARTS = 5;
const WARM_UP = 5;
const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_fsrv_" }));
await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\nworld\n".repeat(20));
const written = "written\n".repeat(30);
const cliPath = new URL("../src/deno/cli/mod.ts", import.meta.url).pathname;
const config = new URL("../deno.json", import.meta.url).pathname;

interface Call {
  tool: string;
  arguments: Record<string, unknown>;
}

interface Server {
  name: string;
  command: string;
  args: string[];
  read: Call;
  write: Call;
}

const servers: Server[] = [
  {
    name: "toolroute serve --stdio",
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
    read: { tool: "read_file", arguments: { path: "hello.txt" } },
    write: { tool: "write_file", arguments: { path: "out_toolroute.txt", content: written } },
  },
  {
    name: "server-filesystem (Node)",
    command: "node",
    args: [serverFilesystem, workspace],
    read: { tool: "read_text_file", arguments: { path: `${workspace}/hello.txt` } },
    write: {
      tool: "write_file",
      arguments: { path: `${workspace}/out_server_filesystem.txt`, content: written },
    },
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

async function call(client: Client, server: Server, which: Call): Promise<number> {
  const started = performance.now();
  const result = await client.callTool({ name: which.tool, arguments: which.arguments });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`${server.name}: ${JSON.stringify(result.content)}`);
  return elapsed;
}

/** Each round runs the servers in turn, the order flipped every other round. */
function inTurn(round: number): number[] {
  return round % 2 === 0 ? [0, 1] : [1, 0];
}

const starts: number[][] = [[], []];
for (let round = 0; round < STARTS; round++) {
  for (const i of inTurn(round)) {
    const { client, startMs } = await connect(servers[i]);
    starts[i].push(startMs);
    await client.close();
  }
}
const clients = await Promise.all(servers.map(async (server) => (await connect(server)).client));
const samples: Record<"read" | "write", number[][]> = { read: [[], []], write: [[], []] };
for (const kind of ["read", "write"] as const) {
  for (let round = 0; round < WARM_UP; round++) {
    for (const i of inTurn(round)) await call(clients[i], servers[i], servers[i][kind]);
  }
  for (let round = 0; round < CALLS; round++) {
    for (const i of inTurn(round)) {
      samples[kind][i].push(await call(clients[i], servers[i], servers[i][kind]));
    }
  }
}
await Promise.all(clients.map((client) => client.close()));
await Deno.remove(workspace, { recursive: true });

const rows: [string, number[][]][] = [
  ["start to first tools/list", starts],
  ["read (read_file / read_text_file)", samples.read],
  ["write (write_file / write_file)", samples.write],
];
console.log(
  `one run, interleaved: ${STARTS} starts and ${CALLS} calls of each kind per server; load ${
    Deno.loadavg().map((v) => v.toFixed(2)).join(" ")
  }\n`,
);
console.log(
  `| measure | ${servers[0].name} median / p99 | ${
    servers[1].name
  } median / p99 | ratio median / p99 |`,
);
console.log("|---|---|---|---|");
for (const [label, [ours, theirs]] of rows) {
  ours.sort((a, b) => a - b);
  theirs.sort((a, b) => a - b);
  const [m0, p0, m1, p1] = [at(ours, 0.5), at(ours, 0.99), at(theirs, 0.5), at(theirs, 0.99)];
  console.log(
    `| ${label} | ${ms(m0)} / ${ms(p0)} | ${ms(m1)} / ${ms(p1)} | ${(m0 / m1).toFixed(2)}× / ${
      (p0 / p1).toFixed(2)
    }× |`,
  );
}
