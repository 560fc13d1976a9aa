import { assertEquals } from "@std/assert";
import { spawnMcpTestServer } from "../../_helpers/mcp_test_server.ts";

const path = (url: URL): string => decodeURIComponent(url.pathname);
const CLIENT = path(new URL("../../_helpers/gateway_exit_client.ts", import.meta.url));
const CONFIG = path(new URL("../../../deno.json", import.meta.url));

Deno.test("a process that made 1000 HTTP calls through the gateway exits by itself after close", async () => {
  // The server ignores DELETE, so only the client's own stream handling can let it exit.
  const server = await spawnMcpTestServer(["--ignore-delete"]);
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        CONFIG,
        "--allow-net=127.0.0.1",
        "--v8-flags=--expose-gc",
        CLIENT,
        server.url,
        "1000",
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, 60_000);
    const output = await child.output();
    clearTimeout(timer);
    assertEquals(hung, false, "the client process did not exit within 60 s of its last call");
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    assertEquals(JSON.parse(new TextDecoder().decode(output.stdout)), { ok: 1000 });
  } finally {
    await server.close();
  }
});
