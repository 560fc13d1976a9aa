/**
 * The servers of `gateway_bench.ts`, in their own process so client and server costs are not
 * mixed: `--servers=N` Streamable HTTP SDK servers on 127.0.0.1, each with the standard test tools
 * (`echo`, `whoami`, …) plus filler tools up to `--tools=M`; `--delay=D` holds every HTTP request
 * D ms first, like a server across a network; `--json` answers with plain JSON instead of SSE
 * streams (`enableJsonResponse`, as stateless servers often do). Prints the URLs as one JSON line
 * and stops when stdin closes.
 *
 * Usage: `deno run --allow-net=127.0.0.1 bench/_gateway_bench_server.ts --servers=20 --tools=50`
 *
 * @module
 */

import { z } from "zod";
import { standardTools, startMcpTestServer } from "../tests/_helpers/mcp_test_server.ts";

const arg = (name: string, fallback: number) =>
  Number(Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const count = arg("servers", 1);
const toolCount = arg("tools", 5);
const delay = arg("delay", 0);
const jsonResponse = Deno.args.includes("--json");

const servers = await Promise.all(
  Array.from({ length: count }, (_, index) =>
    startMcpTestServer({
      name: `bench-${index}`,
      jsonResponse,
      intercept: delay > 0
        ? () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), delay))
        : undefined,
      tools(server, context) {
        standardTools(server, context);
        for (let i = 5; i < toolCount; i++) {
          server.registerTool(`tool_${i}`, {
            description: `Filler tool ${i}`,
            inputSchema: z.object({ value: z.string() }),
          }, ({ value }) => ({ content: [{ type: "text", text: value }] }));
        }
      },
    })),
);
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(servers.map((s) => s.url)) + "\n"));
for await (const _ of Deno.stdin.readable) {
  // Runs until stdin closes.
}
await Promise.all(servers.map((server) => server.close()));
