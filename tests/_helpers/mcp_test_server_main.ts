/**
 * Runs {@linkcode startMcpTestServer} with the standard tools in its own process, prints its URL on
 * the first line of stdout, and stops when stdin closes. For tests and benches that keep client
 * and server costs apart, or that kill the server (`Deno.ChildProcess#kill`) to simulate a crash.
 *
 * Usage: `deno run --allow-net=127.0.0.1 tests/_helpers/mcp_test_server_main.ts [--json] [--port=N] [--ignore-delete]`
 *
 * @module
 */

import { startMcpTestServer } from "./mcp_test_server.ts";

const port = Number(Deno.args.find((arg) => arg.startsWith("--port="))?.slice(7) ?? 0);
const ignoreDelete = Deno.args.includes("--ignore-delete");
const server = await startMcpTestServer({
  jsonResponse: Deno.args.includes("--json"),
  port,
  // Like servers that do not end sessions on DELETE, so clients must close their own streams.
  intercept: (request) =>
    ignoreDelete && request.method === "DELETE" ? new Response(null, { status: 405 }) : undefined,
});
await Deno.stdout.write(new TextEncoder().encode(server.url + "\n"));
for await (const _ of Deno.stdin.readable) {
  // Runs until stdin closes.
}
await server.close();
