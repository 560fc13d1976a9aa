import { assertEquals } from "@std/assert";
import {
  checkCliPermissions,
  cliDenoFlags,
  cliPermissions,
} from "../../../src/deno/cli/cli_permissions.ts";
import { resolveConfig } from "../../../src/deno/cli/load_config.ts";
import {
  hostServerPaths,
  serverPaths,
  socketPathOf,
} from "../../../src/deno/sandbox/server_paths.ts";
import { hostProbe } from "../../_helpers/bwrap.ts";

/** Probed with this module's permissions, before a test narrows them. */
const BWRAP_INSTALLED = hostProbe.available();

const config = resolveConfig({
  workspace: "/srv/ws",
  modules: ["/srv/tools.ts"],
  mcpServers: {
    remote: { url: "http://127.0.0.1:9000/mcp" },
    local: { command: "/usr/bin/env", args: ["echo"] },
  },
}, { env: false, path: "/srv/ws/toolroute.json", cwd: "/" });

// The sandboxed stdio server's own package cache (made at its first start, so written).
const localCache = hostServerPaths({ scope: "/srv/ws/toolroute.json", serverId: "local" }).cache!;

Deno.test("cliPermissions() adds modules, servers and the listening address to the built-ins' needs", () => {
  const needed = cliPermissions(config, "127.0.0.1:8787");
  assertEquals(needed, {
    read: ["/srv/ws", "/srv/tools.ts"],
    write: ["/srv/ws", localCache],
    // The stdio server runs in its own sandbox by default: bash and bubblewrap start it.
    run: ["/usr/bin/env", "bash", "bwrap"],
    env: [
      "DENO_DIR",
      "HOME",
      "HTTPS_PROXY",
      "HTTP_PROXY",
      "NODE_EXTRA_CA_CERTS",
      "NO_PROXY",
      "PATH",
      "SSL_CERT_DIR",
      "SSL_CERT_FILE",
      "TOOLROUTE_TOKEN",
      "http_proxy",
      "https_proxy",
      "no_proxy",
    ],
    net: ["127.0.0.1:8787", "127.0.0.1:9000"],
    // No server has a network: no proxy socket to check.
    sys: [],
  });
  assertEquals(cliDenoFlags(needed), [
    "--allow-read=/srv/ws,/srv/tools.ts",
    `--allow-write=/srv/ws,${localCache}`,
    "--allow-run=/usr/bin/env,bash,bwrap",
    "--allow-env=DENO_DIR,HOME,HTTPS_PROXY,HTTP_PROXY,NODE_EXTRA_CA_CERTS,NO_PROXY,PATH," +
    "SSL_CERT_DIR,SSL_CERT_FILE,TOOLROUTE_TOKEN,http_proxy,https_proxy,no_proxy",
    "--allow-net=127.0.0.1:8787,127.0.0.1:9000",
    "--no-prompt",
  ]);
});

Deno.test({
  name: "checkCliPermissions() does not refuse to start without the proxy and CA variables",
  permissions: { read: ["/srv/ws"], write: ["/srv/ws"], net: ["127.0.0.1:8787"] },
  fn() {
    const { missing } = checkCliPermissions(config, cliPermissions(config, "127.0.0.1:8787"));
    assertEquals(missing.filter((flag) => /PROXY|proxy|CERT/.test(flag)), []);
    assertEquals(missing.includes("--allow-env=PATH"), true);
  },
});

Deno.test({
  name: "checkCliPermissions() finds exactly what a narrowed process lacks and nothing in excess",
  permissions: { read: ["/srv/ws"], write: ["/srv/ws"], net: ["127.0.0.1:8787"] },
  fn() {
    const report = checkCliPermissions(config, cliPermissions(config, "127.0.0.1:8787"));
    assertEquals(report.excess, []);
    assertEquals(report.missing.sort(), [
      "--allow-env=DENO_DIR",
      "--allow-env=HOME",
      "--allow-env=PATH",
      "--allow-env=TOOLROUTE_TOKEN",
      "--allow-net=127.0.0.1:9000",
      "--allow-read=/srv/tools.ts",
      "--allow-run=/usr/bin/env",
      "--allow-run=bash",
      // Deno grants a program by its path: where bubblewrap is not installed, nothing to grant.
      ...(BWRAP_INSTALLED ? ["--allow-run=bwrap"] : []),
    ]);
  },
});

Deno.test({
  name: "checkCliPermissions() reports unscoped grants as excess",
  permissions: { read: true, write: ["/srv/ws", localCache], net: true, env: true, run: true },
  fn() {
    const report = checkCliPermissions(config, cliPermissions(config));
    assertEquals(report.missing, []);
    assertEquals(report.excess.sort(), [
      "--allow-env",
      "--allow-net",
      "--allow-read",
      "--allow-run",
    ]);
  },
});

const mcpOnly = resolveConfig({ mcpServers: { remote: { url: "http://127.0.0.1:9000/mcp" } } }, {
  env: false,
  path: "/home/u/.config/mcp.json",
  cwd: "/",
});

Deno.test("cliPermissions() of a config with only mcpServers needs no workspace access", () => {
  // The tool lock file beside the config is read (pinning) and written (`toolroute lock`), and so
  // are the last known tool lists (names across restarts); nothing of the folder else.
  assertEquals(cliDenoFlags(cliPermissions(mcpOnly)), [
    "--allow-read=/home/u/.config/mcp.json,/home/u/.config/toolroute.lock,/home/u/.config/toolroute.names.json",
    "--allow-write=/home/u/.config/toolroute.lock,/home/u/.config/toolroute.names.json",
    "--allow-net=127.0.0.1:9000",
    "--no-prompt",
  ]);
});

Deno.test({
  name: "checkCliPermissions() of a config with only mcpServers calls a workspace write excess",
  permissions: {
    read: [
      "/home/u/.config/mcp.json",
      "/home/u/.config/toolroute.lock",
      "/home/u/.config/toolroute.names.json",
    ],
    write: ["/home/u/.config"], // covers the lock and the names, and the folder beyond it

    net: ["127.0.0.1:9000"],
  },
  fn() {
    const report = checkCliPermissions(mcpOnly, cliPermissions(mcpOnly));
    assertEquals(report, { missing: [], excess: ["--allow-write=/home/u/.config"], absent: [] });
  },
});

Deno.test("cliPermissions() gives a sandboxed stdio server its roots, read-only paths and hosts", () => {
  const sandboxed = resolveConfig(
    {
      workspace: "/srv/ws",
      mcpServers: {
        files: {
          command: "/usr/bin/env",
          sandbox: {
            roots: ["/srv/data"],
            readOnly: ["/srv/docs"],
            network: { allow: ["api.example.com", "*.example.org"] },
          },
        },
        plain: { command: "/usr/bin/true", sandbox: "none" },
      },
    },
    { path: "/srv/ws/toolroute.json", cwd: "/", env: false },
  );
  const needed = cliPermissions(sandboxed);
  assertEquals(needed.run, ["/usr/bin/env", "/usr/bin/true", "bash", "bwrap"]);
  for (const path of ["/srv/data", "/srv/docs"]) {
    assertEquals(needed.read.includes(path), true, `${path} read`);
  }
  assertEquals(needed.write.includes("/srv/data"), true);
  assertEquals(needed.write.includes("/srv/docs"), false);
  // Deno's --allow-net has no wildcard: only the exact name is listed. The egress proxy's
  // socket is granted by its exact path, in a folder of the config and user; the user's id
  // checks that folder's owner.
  const paths = hostServerPaths({ scope: "/srv/ws/toolroute.json", serverId: "files" });
  const { socket, socketFolder } = socketPathOf(paths, "files");
  assertEquals(needed.net, ["api.example.com", `unix:${socket}`]);
  assertEquals(needed.sys, ["uid"]);
  for (const path of [socketFolder, paths.cache!]) {
    assertEquals(needed.write.includes(path), true, `${path} written`);
  }
  assertEquals(needed.read.includes(socketFolder), true);
  const runtime = Deno.env.get("XDG_RUNTIME_DIR");
  assertEquals(
    socket.startsWith(runtime ? `${runtime}/toolroute-` : "/tmp/toolroute-") &&
      socket.length <= 107,
    true,
    socket,
  );
  // The socket folder follows XDG_RUNTIME_DIR, so serve may read that variable.
  assertEquals(needed.env.includes("XDG_RUNTIME_DIR"), true);
  // Another server, user or config has another socket and cache.
  const others = [
    hostServerPaths({ scope: "/srv/ws/toolroute.json", serverId: "other" }),
    hostServerPaths({ scope: "/srv/ws/toolroute.json", serverId: "files", userId: "alice" }),
    hostServerPaths({ scope: "/srv/other.json", serverId: "files" }),
  ];
  assertEquals(new Set([paths, ...others].map((each) => each.socket)).size, 4);
  assertEquals(new Set([paths, ...others].map((each) => each.cache)).size, 4);
});

Deno.test("the proxy socket folder is under XDG_RUNTIME_DIR when it is set, absolute and short enough", () => {
  const identity = { scope: "/srv/ws/toolroute.json", serverId: "files" };
  const own = serverPaths(identity, { uid: 1000, runtimeDir: "/run/user/1000/" });
  assertEquals(own.socketFolder?.startsWith("/run/user/1000/toolroute-"), true, own.socketFolder);
  assertEquals(own.socket?.startsWith(`${own.socketFolder}/`), true);
  // Unset, relative or so long that the socket would not fit: /tmp, as without it.
  for (const runtimeDir of [undefined, "run/user/1000", `/run/${"x".repeat(80)}`]) {
    const paths = serverPaths(identity, { uid: 1000, ...(runtimeDir ? { runtimeDir } : {}) });
    assertEquals(paths.socketFolder?.startsWith("/tmp/toolroute-"), true, runtimeDir);
    assertEquals((paths.socket?.length ?? 0) <= 107, true);
  }
  // The same name in either place: one config and user share it.
  assertEquals(
    own.socket?.slice("/run/user/1000".length),
    serverPaths(identity, { uid: 1000 }).socket?.slice("/tmp".length),
  );
});
