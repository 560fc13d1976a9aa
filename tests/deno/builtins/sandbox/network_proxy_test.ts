import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools, resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { hostAllowed } from "../../../../src/deno/builtins/sandbox/network_proxy.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test("hostAllowed() takes exact names and *. wildcards, never an IP address", () => {
  const allow = ["registry.npmjs.org", "*.example.com", "localhost"];
  assert(hostAllowed("registry.npmjs.org", allow));
  assert(hostAllowed("REGISTRY.npmjs.org.", allow));
  assert(hostAllowed("a.b.example.com", allow));
  assert(!hostAllowed("example.com", allow));
  assert(!hostAllowed("evil-registry.npmjs.org", allow));
  assert(!hostAllowed("registry.npmjs.org.evil.com", allow));
  for (const ip of ["127.0.0.1", "[::1]", "::1", "2130706433", "0x7f000001", "127.1"]) {
    assert(!hostAllowed(ip, [...allow, ip]), ip);
  }
});

Deno.test("resolveBuiltinContext() checks bash.network and keeps none as no field", () => {
  const none = resolveBuiltinContext({
    workspace: "/ws",
    bash: { sandbox: "bwrap", network: "none" },
  });
  assertEquals(none.bash !== false && none.bash.network, undefined);
  const some = resolveBuiltinContext({
    workspace: "/ws",
    bash: { sandbox: "bwrap", network: { allow: ["Registry.npmjs.org", "*.example.com"] } },
  });
  assertEquals(some.bash !== false && some.bash.network, {
    allow: ["registry.npmjs.org", "*.example.com"],
  });
  for (const bad of [{ allow: ["1.2.3.4"] }, { allow: ["https://x.org"] }, { allow: "x" }, "all"]) {
    let thrown = false;
    try {
      // deno-lint-ignore no-explicit-any
      resolveBuiltinContext({ workspace: "/ws", bash: { sandbox: "bwrap", network: bad as any } });
    } catch (error) {
      thrown = error instanceof TypeError;
    }
    assert(thrown, JSON.stringify(bad));
  }
});

Deno.test({
  name: "with an allowlist, the sandbox reaches an allowed name through the proxy, nothing else",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_net_" }));
    let served = 0;
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      served++;
      return new Response("hello from the host\n");
    });
    const port = server.addr.port;
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        bash: { sandbox: "bwrap", network: { allow: ["localhost"] } },
      }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    const curl = async (args: string) => {
      // curl never proxies "localhost" on its own: name the proxy from the environment.
      const result = await tools.call("bash", {
        command: `curl -sS -m 5 -x "$https_proxy" ${args}`,
      });
      return JSON.parse(result.text) as { exitCode: number; stdout: string; stderr: string };
    };
    const allowed = await curl(`http://localhost:${port}/`);
    assertEquals(allowed.stdout, "hello from the host\n", allowed.stderr);
    const tunnel = await curl(`-p http://localhost:${port}/`);
    assertEquals(tunnel.stdout, "hello from the host\n", tunnel.stderr);
    const ip = await curl(`http://127.0.0.1:${port}/`);
    assertMatch(ip.stdout, /not on the sandbox's network allowlist/);
    const other = await curl(`-p http://other.localhost:${port}/`);
    assert(other.exitCode !== 0, other.stdout);
    assertMatch(other.stderr, /403/);
    const direct = await curl(`--noproxy '*' http://localhost:${port}/`);
    assert(direct.exitCode !== 0 && direct.stdout === "", direct.stdout);
    assertEquals(served, 2);
    await router.close();
    await Deno.remove(ws, { recursive: true });
  },
});

Deno.test({
  name: 'without a network setting ("none"), the sandbox has no proxy and no way out',
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_net_" }));
    let served = 0;
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      served++;
      return new Response("hello\n");
    });
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: ws, bash: true }) });
    const tools = await router.expose({ builtins: ["bash"] });
    const result = JSON.parse(
      (await tools.call("bash", {
        command:
          `env | grep -i proxy; curl -sS -m 3 -x http://127.0.0.1:3128 http://localhost:${server.addr.port}/`,
      })).text,
    );
    assert(result.exitCode !== 0, result.stdout);
    assertEquals(served, 0);
    await router.close();
    await Deno.remove(ws, { recursive: true });
  },
});
