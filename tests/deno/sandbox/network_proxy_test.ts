import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools, resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { hostAllowed, NetworkProxy } from "../../../src/deno/sandbox/network_proxy.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { sandboxedBash } from "../../_helpers/sandboxed_bash.ts";

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
    maxConnections: 64,
    idleTimeoutMs: 60_000,
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
    let served = 0;
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      served++;
      return new Response("hello\n");
    });
    await using box = await sandboxedBash({ bash: true }, { prefix: "toolroute_net_" });
    const { tools } = box;
    const result = JSON.parse(
      (await tools.call("bash", {
        command:
          `env | grep -i proxy; curl -sS -m 3 -x http://127.0.0.1:3128 http://localhost:${server.addr.port}/`,
      })).text,
    );
    assert(result.exitCode !== 0, result.stdout);
    assertEquals(served, 0);
  },
});

// A TCP server on 127.0.0.1 that accepts and holds every connection (an upstream that never
// answers), and says how many it holds and how many were closed by the other side.
function holdingServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held = new Set<Deno.Conn>();
  const state = { accepted: 0, closedByPeer: 0 };
  void (async () => {
    try {
      for await (const conn of listener) {
        state.accepted++;
        held.add(conn);
        void (async () => {
          const buffer = new Uint8Array(1024);
          try {
            while ((await conn.read(buffer)) !== null) { /* keep reading */ }
          } catch {
            // Reset.
          }
          state.closedByPeer++;
          held.delete(conn);
          try {
            conn.close();
          } catch {
            // Closed already.
          }
        })();
      }
    } catch {
      // Closed.
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    state,
    close() {
      listener.close();
      for (const conn of held) conn.close();
    },
  };
}

// Under test:deno's permissions (not --allow-all) Deno refuses to read /proc itself: a child
// lists this process's descriptors instead.
async function openFds(): Promise<number> {
  const { stdout } = await new Deno.Command("ls", { args: [`/proc/${Deno.pid}/fd`] }).output();
  return new TextDecoder().decode(stdout).split("\n").filter((name) => name !== "").length;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  // A failsafe, not a measure: the conditions are effects the test waits for.
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

Deno.test("NetworkProxy answers connections past maxConnections with 503 and closes idle ones on both sides", async () => {
  const upstream = holdingServer();
  const proxy = await NetworkProxy.start(["localhost"], { maxConnections: 4, idleTimeoutMs: 300 });
  const clients: Deno.UnixConn[] = [];
  const answers: string[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      const conn = await Deno.connect({ transport: "unix", path: proxy.socket });
      clients.push(conn);
      await conn.write(
        new TextEncoder().encode(`CONNECT localhost:${upstream.port} HTTP/1.1\r\n\r\n`),
      );
      const buffer = new Uint8Array(512);
      const count = await conn.read(buffer);
      answers.push(new TextDecoder().decode(buffer.subarray(0, count ?? 0)).split("\r\n")[0]);
    }
    // The flood really reached the proxy: 4 tunnels, 16 refusals that say why.
    assertEquals(answers.filter((a) => a === "HTTP/1.1 200 Connection Established").length, 4);
    assertEquals(answers.filter((a) => a === "HTTP/1.1 503 Service Unavailable").length, 16);
    assertEquals(proxy.counts.overLimit, 16);
    assertEquals(upstream.state.accepted, 4);
    assertEquals(proxy.open, 4);
    // Idle tunnels are closed on both sides: the upstream sees its end, the client its EOF.
    await until(() => upstream.state.closedByPeer === 4, "the upstream sides closed");
    for (const conn of clients.slice(0, 4)) {
      assertEquals(await conn.read(new Uint8Array(16)).catch(() => null), null);
    }
    assertEquals(proxy.counts.idleClosed, 4);
    assertEquals(proxy.open, 0);
    // A head that never ends is closed too.
    const slow = await Deno.connect({ transport: "unix", path: proxy.socket });
    clients.push(slow);
    await slow.write(new TextEncoder().encode("CONNECT local"));
    assertEquals(await slow.read(new Uint8Array(16)).catch(() => null), null);
    assertEquals(proxy.counts.idleClosed, 5);
  } finally {
    for (const conn of clients) {
      try {
        conn.close();
      } catch {
        // Closed by the proxy.
      }
    }
    await proxy.close();
    upstream.close();
  }
});

Deno.test({
  name:
    "a sandboxed background job flooding the proxy with connections cannot exhaust the host's file descriptors",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_net_" }));
    const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_other_" }));
    await Deno.writeTextFile(`${other}/notes.txt`, "another tool set's file\n");
    const upstream = holdingServer();
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        bash: {
          sandbox: "bwrap",
          network: { allow: ["localhost"], maxConnections: 8, idleTimeoutMs: 2000 },
        },
      }),
    });
    await using otherRouter = new ToolRouter({ builtins: builtinTools({ workspace: other }) });
    const tools = await router.expose({ builtins: ["bash"] });
    const otherTools = await otherRouter.expose({ builtins: ["read_file"] });
    // Start the session (and its proxy) first, so that the baseline holds them.
    await tools.call("bash", { command: "true" });
    const baseline = await openFds();
    // The attack: 150 connections through the proxy, each asking for a tunnel, all held open.
    const job = `fds=()
for i in $(seq 1 150); do
  exec {fd}<>/dev/tcp/127.0.0.1/3128 || continue
  fds+=($fd)
  printf 'CONNECT localhost:${upstream.port} HTTP/1.1\\r\\n\\r\\n' >&$fd
done
echo "opened \${#fds[@]}" > opened
for fd in "\${fds[@]}"; do read -r -t 5 line <&$fd; echo "\${line%$'\\r'}"; done > answers
echo answered >> opened
closed=0
for fd in "\${fds[@]}"; do timeout 30 cat <&$fd >/dev/null && closed=$((closed + 1)); done
echo "closed $closed" >> opened
sleep 600`;
    await tools.call("bash", { action: "start", command: job });
    let peak = 0;
    let read: Awaited<ReturnType<typeof otherTools.call>> | undefined;
    await until(async () => {
      peak = Math.max(peak, await openFds());
      const opened = await Deno.readTextFile(`${ws}/opened`).catch(() => "");
      if (opened.includes("answered") && read === undefined) {
        // While the job holds every connection it could open, another tool set reads a file.
        read = await otherTools.call("read_file", { path: "notes.txt" });
      }
      return opened.includes("closed");
    }, "the job's connections to end");
    const opened = await Deno.readTextFile(`${ws}/opened`);
    const answers = (await Deno.readTextFile(`${ws}/answers`)).split("\n");
    // The attack ran: 150 connections were open in the sandbox at once, 8 reached the upstream,
    // the rest were refused with a 503 (not a crash), and the proxy ended every one of them.
    assertMatch(opened, /^opened 150\n/);
    assertEquals(answers.filter((a) => a === "HTTP/1.1 200 Connection Established").length, 8);
    assertEquals(answers.filter((a) => a === "HTTP/1.1 503 Service Unavailable").length, 142);
    assertEquals(upstream.state.accepted, 8);
    assertMatch(opened, /closed 150\n/);
    await until(() => upstream.state.closedByPeer === 8, "the upstream sides closed");
    // The host's descriptors stayed bounded: three for each of the 8 tunnels (client, upstream
    // and the upstream server's own end in this process) and at most one for each refusal in
    // flight, which a loaded machine lets pile up until the proxy answers (a timing no test can
    // fix). Unbounded, the job's 150 held connections would cost the host three each (450).
    assert(
      peak - baseline <= 142 + 3 * 8,
      `the host's open fds went from ${baseline} to ${peak}`,
    );
    assertEquals(read?.isError, false, read?.text);
    assertMatch(read!.text, /another tool set's file/);
    // The slots are free again: a new request through the proxy gets through.
    const again = JSON.parse(
      (await tools.call("bash", {
        command:
          `exec 3<>/dev/tcp/127.0.0.1/3128; printf 'CONNECT localhost:${upstream.port} HTTP/1.1\\r\\n\\r\\n' >&3; read -r -t 5 line <&3; echo "$line"`,
      })).text,
    );
    assertMatch(again.stdout, /200 Connection Established/);
    await router.close();
    await otherRouter.close();
    upstream.close();
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(other, { recursive: true });
  },
});
