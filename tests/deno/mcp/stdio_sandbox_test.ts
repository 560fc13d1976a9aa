/**
 * Stdio MCP servers in their own bubblewrap sandbox: started sandboxed by default, answering
 * `tools/list` and `tools/call`; the `sandbox` setting checked on registration; without
 * bubblewrap one `unconfined` warning, or a clear error when the config asked for the sandbox;
 * a server killed at its memory limit reported in `status()` and reconnected.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { dirname, fromFileUrl, join } from "@std/path";
import type { McpGatewayEvent, McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { ToolRouter } from "../../../mod.ts";
import { hostServerPaths, socketPathOf } from "../../../src/deno/sandbox/server_paths.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import {
  filesServer,
  filesSetup,
  removePaths,
  writeFetcher,
} from "../../_helpers/stdio_fixture_servers.ts";

const FIXTURE = fromFileUrl(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
const REPO = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");

// The fixture runs with the repository's config and Deno's cache: the repository is shown
// read-only (the program, its runtime and the caches are shown by default).
const fixture = (sandbox: McpStdioServerConfig["sandbox"], env?: Record<string, string>) => ({
  command: Deno.execPath(),
  args: ["run", "--frozen", "--allow-read", "--allow-env", FIXTURE],
  cwd: REPO,
  sandbox,
  ...(env === undefined ? {} : { env }),
});

const expose = (gateway: ReturnType<typeof createDenoGateway>, ids: string[]) =>
  new ToolRouter({ gateway }).expose({ mcpServers: ids });

/** A PATH with `bash` and `sh` but no `bwrap`: a machine without bubblewrap. */
async function pathWithoutBwrap(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  for (const program of ["bash", "sh"]) {
    const real = new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).outputSync();
    await Deno.symlink(new TextDecoder().decode(real.stdout).trim(), join(bin, program));
  }
  return bin;
}

Deno.test({
  name: "a stdio server runs in its own sandbox by default: tools/list and tools/call answer",
  ignore: skipWithoutBwrap(),
  async fn() {
    const events: McpGatewayEvent[] = [];
    await using gateway = createDenoGateway({
      servers: { fixture: fixture({ readOnly: [REPO] }) },
      onEvent: (event) => events.push(event),
    });
    const tools = await expose(gateway, ["fixture"]);
    assertEquals(tools.missing, []);
    assert(JSON.stringify(tools.tools).includes("echo"), "tools/list answered");
    assertEquals(await tools.invoke("echo", { text: "hi" }), "hi");
    // It is sandboxed: its own PID namespace (it is not the host's child), a fresh HOME, and
    // the host's home folder is not there.
    assertEquals(await tools.invoke("env", { name: "HOME" }), "/home/sandbox");
    const pid = Number(await tools.invoke("pid", {}));
    assert(pid < 50, `a low pid in its own namespace, got ${pid}`);
    const home = Deno.env.get("HOME") ?? "/root";
    const read = String(await tools.invoke("read", { path: join(home, ".bashrc") }));
    assert(Deno.statSync(join(home, ".bashrc")).isFile, "the host has the file");
    assertMatch(read, /NotFound|No such file|cannot|denied/i);
    assertEquals(events.filter((event) => event.type === "unconfined"), []);
  },
});

Deno.test("the sandbox setting is checked when a server is registered", () => {
  const bad: [unknown, RegExp][] = [
    ["yes", /"sandbox" must be "none", "bwrap" or an object/],
    [{ root: ["/x"] }, /"sandbox.root" is not a sandbox field/],
    [{ roots: ["relative"] }, /"sandbox.roots" must be an array of absolute paths/],
    [{ network: "all" }, /"sandbox.network" must be "none" or \{ "allow"/],
    [{ network: { allow: [1] } }, /"sandbox.network" must be/],
    [{ limits: { memoryMiB: 0 } }, /"sandbox.limits.memoryMiB" must be a positive integer/],
    [{ limits: { cpu: 1 } }, /"sandbox.limits.cpu" is not a limit/],
  ];
  for (const [sandbox, message] of bad) {
    const error = assertThrows(
      () =>
        createDenoGateway({
          servers: { s: { command: "x", sandbox } as unknown as McpStdioServerConfig },
        }),
      TypeError,
    );
    assertMatch(error.message, message);
    assertStringIncludes(error.message, 'Cannot add MCP server "s"');
  }
});

Deno.test({
  name: "without bubblewrap a server runs unconfined with one warning; an explicit sandbox fails",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "toolroute_nobwrap_" });
    const hostPath = Deno.env.get("PATH");
    try {
      const path = await pathWithoutBwrap(dir);
      // bubblewrap is looked for on the host's PATH too (a config's PATH cannot drop it).
      Deno.env.set("PATH", path);
      const events: McpGatewayEvent[] = [];
      await using gateway = createDenoGateway({
        servers: {
          plain: fixture(undefined, { PATH: path }),
          asked: fixture("bwrap", { PATH: path }),
        },
        onEvent: (event) => events.push(event),
        reconnect: { initialDelayMs: 1, maxAttemptsPerCall: 1 },
      });
      const tools = await expose(gateway, ["plain"]);
      // It ran, as a plain process: it sees the host's home.
      assertEquals(await tools.invoke("echo", { text: "x" }), "x");
      assertEquals(await tools.invoke("env", { name: "HOME" }), Deno.env.get("HOME"));
      // A crash and a respawn: still one warning.
      await tools.call("crash", {});
      assertEquals(await tools.invoke("echo", { text: "y" }), "y");
      const warnings = events.filter((event) => event.type === "unconfined");
      assertEquals(warnings.length, 1, "one warning, not one per connection");
      assertEquals(warnings[0].serverId, "plain");
      assertStringIncludes(warnings[0].message!, "runs unconfined");
      assertStringIncludes(warnings[0].message!, "apt-get install -y bubblewrap");
      // Asked for explicitly, it never starts unconfined.
      const asked = await expose(gateway, ["asked"]);
      assertEquals(asked.missing.map((m) => m.name), ["asked"]);
      const status = gateway.status().find((s) => s.id === "asked");
      assertStringIncludes(status?.lastError ?? "", "bubblewrap (bwrap) is not installed");
      assertStringIncludes(status?.lastError ?? "", '"sandbox": "none"');
    } finally {
      if (hostPath !== undefined) Deno.env.set("PATH", hostPath);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a sandboxed server killed at its memory limit is upstream_unavailable, says why, and comes back; its own kill -9 is no memory limit",
  ignore: skipWithoutBwrap(),
  async fn() {
    const hog = join(await Deno.makeTempDir({ prefix: "toolroute_hog_" }), "hog.ts");
    // A server whose tool allocates without end; the marker file proves the hog ran.
    await Deno.writeTextFile(
      hog,
      `${
        (await Deno.readTextFile(FIXTURE)).split("const server = new McpServer")[0]
          .replaceAll('"../../src/', `"${REPO}/src/`)
      }
const server = new McpServer({ name: "hog", version: "1.0.0" });
server.registerTool("hog", { description: "eats memory", inputSchema: z.object({}) }, () => {
  const kept = [];
  Deno.writeTextFileSync("${dirname(hog)}/hog-started", "1");
  for (;;) kept.push(new Uint8Array(16 * 1024 * 1024).fill(1));
});
server.registerTool("ok", { description: "answers", inputSchema: z.object({}) }, () => ({
  content: [{ type: "text", text: "ok" }],
}));
server.registerTool("die", { description: "kill -9 itself", inputSchema: z.object({}) }, () => {
  Deno.writeTextFileSync("${dirname(hog)}/die-started", "1");
  Deno.kill(Deno.pid, "SIGKILL");
  return new Promise(() => {});
});
await server.connect(new DenoStdioServerTransport());
`,
    );
    try {
      await using gateway = createDenoGateway({
        servers: {
          hog: {
            command: Deno.execPath(),
            args: ["run", "--frozen", "--config", join(REPO, "deno.json"), "-A", hog],
            sandbox: { readOnly: [REPO], roots: [dirname(hog)], limits: { memoryMiB: 256 } },
          },
        },
      });
      const tools = await expose(gateway, ["hog"]);
      assertEquals(tools.missing, []);
      assertEquals(await tools.invoke("ok", {}), "ok");
      const result = await tools.call("hog", {});
      assertEquals(result.code, "upstream_unavailable", result.text);
      // The hog really ran (its marker, written in its root, is on the host).
      assertEquals(await Deno.readTextFile(join(dirname(hog), "hog-started")), "1");
      const status = gateway.status().find((s) => s.id === "hog");
      assertStringIncludes(status?.lastError ?? "", "killed: memory limit 256 MiB");
      // It reconnects as any server that went away.
      assertEquals(await tools.invoke("ok", {}), "ok");
      // Its own `kill -9` ends it with the same 137, but that is no memory limit.
      const died = await tools.call("die", {});
      assertEquals(died.code, "upstream_unavailable", died.text);
      assertEquals(await Deno.readTextFile(join(dirname(hog), "die-started")), "1");
      const after = gateway.status().find((s) => s.id === "hog")?.lastError ?? "";
      assertStringIncludes(after, "code 137, killed by signal 9");
      assert(!after.includes("memory limit"), after);
    } finally {
      await Deno.remove(dirname(hog), { recursive: true });
    }
  },
});

Deno.test({
  name: "a sandboxed server reaches only its network.allow hosts, through the egress proxy",
  ignore: skipWithoutBwrap(),
  async fn() {
    const hits: string[] = [];
    await using web = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      hits.push(new URL(request.url).pathname);
      return new Response("reached");
    });
    const port = web.addr.port;
    const folder = await Deno.makeTempDir({ prefix: "toolroute_fetch_" });
    const script = join(folder, "fetcher.ts");
    await writeFetcher(script);
    try {
      await using gateway = createDenoGateway({
        servers: {
          fetcher: {
            command: Deno.execPath(),
            args: ["run", "--frozen", "--config", join(REPO, "deno.json"), "-A", script],
            sandbox: { readOnly: [REPO, folder], network: { allow: ["localhost"] } },
          },
        },
      });
      const tools = await expose(gateway, ["fetcher"]);
      assertEquals(tools.missing, []);
      // The allowed name goes through the proxy, which resolves it on the host.
      assertEquals(
        await tools.invoke("fetch", { url: `http://localhost:${port}/allowed` }),
        "200 reached",
      );
      assertEquals(hits, ["/allowed"]);
      // An address not on the list is refused by the proxy, and never reaches the server.
      const refused = String(await tools.invoke("fetch", { url: `http://127.0.0.1:${port}/ip` }));
      assert(/^403 |failed/.test(refused), refused);
      assertEquals(hits, ["/allowed"], "the unlisted address was not reached");
    } finally {
      await Deno.remove(folder, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "each sandboxed server has its own package cache: it keeps what it wrote, and another server can neither read nor write it",
  ignore: skipWithoutBwrap(),
  async fn() {
    const { dir, scope, server } = await filesSetup();
    const ids = ["a", "b"];
    try {
      const first = createDenoGateway({
        servers: { a: filesServer(server, {}) },
        sandboxScope: scope,
      });
      await using other = createDenoGateway({
        servers: { b: filesServer(server, {}) },
        sandboxScope: scope,
      });
      const a = await expose(first, ["a"]);
      const b = await expose(other, ["b"]);
      const [cacheA, cacheB] = ids.map((serverId) => hostServerPaths({ scope, serverId }).cache!);
      assert(cacheA !== cacheB);
      // npm and uv are pointed at it.
      assertEquals(await a.invoke("env", { name: "npm_config_cache" }), `${cacheA}/npm`);
      assertEquals(await a.invoke("env", { name: "UV_CACHE_DIR" }), `${cacheA}/uv`);
      assertEquals(await b.invoke("env", { name: "npm_config_cache" }), `${cacheB}/npm`);
      assertEquals(
        await a.invoke("write", { path: `${cacheA}/npm/package.tgz`, text: "from a" }),
        "written",
      );
      assertEquals(
        await b.invoke("write", { path: `${cacheB}/npm/package.tgz`, text: "from b" }),
        "written",
      );
      // Both writes really reached the host (the attack below has a target).
      assertEquals(await Deno.readTextFile(`${cacheB}/npm/package.tgz`), "from b");
      // A cannot read B's cached package, nor plant one there.
      assertMatch(
        String(await a.invoke("read", { path: `${cacheB}/npm/package.tgz` })),
        /^failed: NotFound/,
      );
      await a.invoke("write", { path: `${cacheB}/npm/package.tgz`, text: "poisoned by a" });
      await a.invoke("write", { path: `${cacheB}/npm/planted.js`, text: "poisoned by a" });
      assertEquals(await Deno.readTextFile(`${cacheB}/npm/package.tgz`), "from b");
      assertEquals([...Deno.readDirSync(`${cacheB}/npm`)].map((entry) => entry.name), [
        "package.tgz",
      ]);
      assertEquals(String(await b.invoke("list", { path: `${cacheB}/npm` })), "package.tgz");
      // The folder is the user's alone.
      assertEquals((Deno.statSync(cacheA).mode ?? 0) & 0o077, 0);
      await first.close();
      // A later start of A (a new gateway: a cold start) finds what it cached.
      await using second = createDenoGateway({
        servers: { a: filesServer(server, {}) },
        sandboxScope: scope,
      });
      const again = await expose(second, ["a"]);
      assertEquals(await again.invoke("read", { path: `${cacheA}/npm/package.tgz` }), "from a");
    } finally {
      await removePaths(scope, ids);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a sandboxed server sees the CA certificates, not the host's private keys",
  ignore: skipWithoutBwrap(),
  async fn() {
    const { dir, scope, server } = await filesSetup();
    try {
      await using gateway = createDenoGateway({ servers: { s: filesServer(server, {}) } });
      const tools = await expose(gateway, ["s"]);
      const certs = String(await tools.invoke("list", { path: "/etc/ssl/certs" }));
      assert(!certs.startsWith("failed"), certs);
      assertEquals(
        certs,
        [...Deno.readDirSync("/etc/ssl/certs")].map((e) => e.name).sort().join(","),
      );
      const bundle = "/etc/ssl/certs/ca-certificates.crt";
      if (Deno.statSync(bundle).isFile) {
        assertStringIncludes(
          String(await tools.invoke("read", { path: bundle })),
          "BEGIN CERTIFICATE",
        );
      }
      let hasPrivate = false;
      try {
        hasPrivate = Deno.statSync("/etc/ssl/private").isDirectory;
      } catch {
        // Not on this host.
      }
      if (hasPrivate) {
        assertMatch(
          String(await tools.invoke("list", { path: "/etc/ssl/private" })),
          /^failed: NotFound/,
        );
      }
      assertMatch(String(await tools.invoke("list", { path: "/etc/ssl" })), /^certs$|^failed/);
    } finally {
      await removePaths(scope, ["s"]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a sandboxed server's proxy socket: one in use by another process is never unlinked, a stale one is replaced",
  ignore: skipWithoutBwrap(),
  async fn() {
    const { dir, scope, server } = await filesSetup();
    const paths = socketPathOf(hostServerPaths({ scope, serverId: "net" }), "net");
    const servers = { net: filesServer(server, { network: { allow: ["localhost"] } }) };
    try {
      await Deno.mkdir(paths.socketFolder, { mode: 0o700 });
      // Another process listens on the server's socket (as a second serve on the config would)
      // and says each connection it accepts.
      const other = new Deno.Command(Deno.execPath(), {
        args: [
          "eval",
          `const l = Deno.listen({ transport: "unix", path: ${JSON.stringify(paths.socket)} });
console.log("listening");
for await (const c of l) { console.log("accepted"); c.close(); }`,
        ],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const lines = other.stdout.pipeThrough(new TextDecoderStream()).getReader();
      assertStringIncludes((await lines.read()).value ?? "", "listening");
      {
        await using gateway = createDenoGateway({ servers, sandboxScope: scope });
        const tools = await expose(gateway, ["net"]);
        assertEquals(tools.missing.map((entry) => entry.name), ["net"]);
        const error = gateway.status().find((s) => s.id === "net")?.lastError ?? "";
        assertStringIncludes(error, `its egress proxy socket ${paths.socket} is in use`);
        assertStringIncludes(error, "another toolroute process serving the same config");
      }
      // The start really found the other process (its probe was accepted), and left its socket.
      assertStringIncludes((await lines.read()).value ?? "", "accepted");
      assert(Deno.lstatSync(paths.socket).isSocket, "the live socket is still there");
      // The other process crashes: its socket file is left, stale.
      other.kill("SIGKILL");
      await other.status;
      await lines.cancel();
      assert(Deno.lstatSync(paths.socket).isSocket, "a stale socket file is left");
      await assertRejects(() => Deno.connect({ transport: "unix", path: paths.socket }));
      await using gateway = createDenoGateway({ servers, sandboxScope: scope });
      const tools = await expose(gateway, ["net"]);
      assertEquals(tools.missing, []);
      assertEquals(await tools.invoke("env", { name: "HTTPS_PROXY" }), "http://127.0.0.1:3128");
      // A new socket took the stale one's place (which nobody answered), and the proxy listens.
      const proxy = await Deno.connect({ transport: "unix", path: paths.socket });
      proxy.close();
    } finally {
      await removePaths(scope, ["net"]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a proxy socket folder squatted by someone else (a link, another owner, a wider mode) neither stops a sandboxed server nor receives its socket",
  ignore: skipWithoutBwrap(),
  async fn() {
    const { dir, scope, server } = await filesSetup();
    const paths = socketPathOf(hostServerPaths({ scope, serverId: "net" }), "net");
    const servers = { net: filesServer(server, { network: { allow: ["localhost"] } }) };
    const elsewhere = join(dir, "attacker");
    await Deno.mkdir(elsewhere, { mode: 0o777 });
    const attempts: [string, () => Promise<void>][] = [
      ["a link", () => Deno.symlink(elsewhere, paths.socketFolder)],
      ["another owner", async () => {
        await Deno.mkdir(paths.socketFolder, { mode: 0o700 });
        await Deno.chown(paths.socketFolder, 65534, 65534);
      }],
      ["a wider mode", async () => {
        await Deno.mkdir(paths.socketFolder);
        await Deno.chmod(paths.socketFolder, 0o777);
      }],
    ];
    try {
      for (const [what, plant] of attempts) {
        await plant();
        // The squat is in place: the name is taken, and not by a folder of ours at mode 700.
        const planted = Deno.lstatSync(paths.socketFolder);
        assert(
          planted.isSymlink || planted.uid !== Deno.uid() || (planted.mode! & 0o777) !== 0o700,
          `${what}: planted`,
        );
        await using gateway = createDenoGateway({ servers, sandboxScope: scope });
        const tools = await expose(gateway, ["net"]);
        // The server started, with its proxy (it has a network) on a socket of its own.
        assertEquals(tools.missing, [], what);
        assertEquals(gateway.status().find((s) => s.id === "net")?.lastError, undefined, what);
        assertEquals(await tools.invoke("env", { name: "HTTPS_PROXY" }), "http://127.0.0.1:3128");
        // Nothing was put in the planted folder, nor where its link points.
        assertEquals([...Deno.readDirSync(paths.socketFolder)], [], what);
        assertEquals([...Deno.readDirSync(elsewhere)], [], what);
        await Deno.remove(paths.socketFolder, { recursive: true });
      }
    } finally {
      await removePaths(scope, ["net"]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
