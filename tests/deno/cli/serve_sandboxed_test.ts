/**
 * `toolroute serve` under exactly the flags `toolroute flags` prints runs a sandboxed stdio
 * server that has a network: its egress proxy's socket is at a path the flags name
 * (`--allow-net=unix:<path>`), and a call reaches a host its `network.allow` names.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { fromFileUrl, join } from "@std/path";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { hostServerPaths, socketPathOf } from "../../../src/deno/sandbox/server_paths.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { listToolsUntil } from "../../_helpers/list_tools_until.ts";
import { writeFetcher } from "../../_helpers/stdio_fixture_servers.ts";
import { exactFlags, startHttpServe } from "./_serve_process.ts";

const REPO = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");

Deno.test({
  name:
    "serve with the exact flags starts a sandboxed server with network.allow, and its call reaches the allowed host",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  async fn() {
    const hits: string[] = [];
    await using web = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      hits.push(new URL(request.url).pathname);
      return new Response("reached");
    });
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sbx_serve_" }));
    const script = join(dir, "fetcher.ts");
    await writeFetcher(script);
    const config = join(dir, "mcp.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        mcpServers: {
          fetcher: {
            command: Deno.execPath(),
            args: ["run", "--frozen", "--config", join(REPO, "deno.json"), "-A", script],
            sandbox: { readOnly: [REPO, dir], network: { allow: ["localhost"] } },
          },
        },
      }),
    );
    const paths = hostServerPaths({ scope: config, serverId: "fetcher" });
    const { socket, socketFolder } = socketPathOf(paths, "fetcher");
    try {
      const flags = await exactFlags(["--config", config, "--http", "127.0.0.1:0"]);
      // The socket is granted by its exact path, the folder it is in, and the user's id that
      // checks the folder's owner.
      const net = flags.find((flag) => flag.startsWith("--allow-net="))!.split("=")[1].split(",");
      assert(net.includes(`unix:${socket}`), flags.join(" "));
      assert(net.includes("localhost"), flags.join(" "));
      assert(flags.includes("--allow-sys=uid"), flags.join(" "));
      assert(socket.length <= 107, socket);
      await using serve = await startHttpServe(flags, ["--config", config]);
      const client = new Client({ name: "sdk-client", version: "1.0.0" });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
        // A sandbox's first start can outlast serve's list bound on a loaded machine.
        const listed = await listToolsUntil(client, ["fetch"], { timeoutMs: 60_000 });
        assert(listed.some((tool) => tool.name === "fetch"), serve.stderr());
        const result = await client.callTool({
          name: "fetch",
          arguments: { url: `http://localhost:${web.addr.port}/through-serve` },
        });
        assertEquals(
          result.content,
          [{ type: "text", text: "200 reached" }],
          `${JSON.stringify(result)}\n${serve.stderr()}`,
        );
        assertEquals(hits, ["/through-serve"]);
        // The socket is where the flags said, in a 0700 folder of this user.
        assert(Deno.lstatSync(socket).isSocket);
        assertEquals((Deno.lstatSync(socketFolder).mode ?? 0) & 0o777, 0o700);
      } finally {
        await client.close();
        await serve.stop();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(socketFolder, { recursive: true }).catch(() => {});
      if (paths.cache !== undefined) await Deno.remove(paths.cache, { recursive: true });
    }
  },
});
