import { STORE_KEY_VARIABLE } from "./served_store.ts";
import { resolve } from "@std/path";
import { REDIS_CLIENT_ENV, type StoreLocation } from "./store_location.ts";
import { isStdioConfig, type McpStdioServerConfig } from "../../core/mcp/mcp_server_config.ts";
import { launcherRegistries } from "../sandbox/command_needs.ts";
import {
  hostServerPaths,
  RUNTIME_DIR_VARIABLE,
  type ServerPaths,
  socketPathOf,
} from "../sandbox/server_paths.ts";
import {
  checkPermissions,
  gap,
  type PermissionGap,
} from "../builtins/permissions/check_permissions.ts";
import { granted, programInstalled } from "../builtins/permissions/program_installed.ts";
import {
  type RequiredPermissions,
  requiredPermissions,
} from "../builtins/permissions/required_permissions.ts";
import { NETWORK_ENV } from "../mcp/stdio_child_command.ts";
import { hostEnv } from "../sandbox/bwrap_search_path.ts";
import { within } from "../sandbox/within.ts";
import { besideConfig, type ToolrouteConfig } from "./toolroute_config.ts";
import { lockPath } from "./tool_lock.ts";
import { TOOL_NAMES_FILE } from "./tool_names_file.ts";
import { APPROVAL_SECRET_VARIABLE } from "./approval_secret.ts";
import { TOKEN_VARIABLE } from "./serve_token.ts";
import { servedContexts } from "./user_workspace.ts";

/**
 * Everything `toolroute serve` needs from Deno's permission system for one config: the built-in
 * contexts' needs, and `read` the config file and the modules too, `write` `toolroute.lock` (for
 * `lock`), the audit and store files and without a store `toolroute.names.json` (the last known
 * tool lists), `run` the stdio MCP server commands, `env` the `${VAR}`s, token variables and
 * stdio children's variables.
 */
export interface CliPermissions extends RequiredPermissions {
  /**
   * Hosts reached or listened on: the HTTP address, remote MCP servers, a sandboxed server's
   * hosts and its egress proxy's socket (`unix:<path>`).
   */
  net: string[];
  /** System information read: `uid`, when a sandboxed server's proxy socket is checked. */
  sys: string[];
}

/** Options of {@linkcode cliPermissions}. */
export interface CliPermissionOptions {
  /** The absolute path `serve --http --token-file` writes the token to. */
  tokenFile?: string;
  /** The `serve --audit` file, written. */
  audit?: string;
  /** The `serve --store` file, read and written. */
  store?: string;
  /** The `serve --store` Redis server (`host:port`), reached. */
  storeHost?: string;
}

/**
 * The files of `--audit`, `--store` and `--token-file` (absolute), or the Redis host `--store`
 * names, as `serve` and `flags` read them.
 *
 * @param store The `--store` location (`storeLocation`).
 */
export function flagFiles(
  flags: Record<string, string | true>,
  store: StoreLocation | undefined,
): CliPermissionOptions {
  const path = (flag: string | true | undefined) =>
    typeof flag === "string" ? resolve(flag) : undefined;
  return {
    audit: path(flags.audit),
    ...(store === undefined
      ? {}
      : "file" in store
      ? { store: store.file }
      : { storeHost: store.net }),
    tokenFile: path(flags["token-file"]),
  };
}

/** Variables a stdio server child inherits when the host may read them (see the gateway). */
const STDIO_ENV = ["DENO_DIR", "HOME", "PATH"];

/**
 * Lists what serving a config needs: the built-in context's permissions plus the config file,
 * modules, MCP servers, variables and the HTTP address.
 *
 * @param http The `--http` address (`host:port`), when serving over HTTP.
 * @param options The `--token-file` of `serve --http`, the `--audit` file (written) and the
 *   `--store` file (read and written).
 * @returns The permissions, each list sorted.
 */
export function cliPermissions(
  config: ToolrouteConfig,
  http?: string,
  options: CliPermissionOptions = {},
): CliPermissions {
  // With {user} in the workspace: each configured user's folder, and never the folder above.
  const each = config.builtins !== false ? servedContexts(config).map(requiredPermissions) : [];
  const read = [...new Set(each.flatMap((needed) => needed.read))];
  const write = [...new Set(each.flatMap((needed) => needed.write))];
  // Without a store, the servers' last known tool lists are kept in a file beside the config.
  const names = options.store === undefined ? besideConfig(config, TOOL_NAMES_FILE) : undefined;
  for (
    const path of [
      config.path,
      ...config.modules,
      lockPath(config),
      names,
      options.audit,
      options.store,
    ]
  ) {
    if (path !== undefined && !read.some((root) => within(root, path))) read.push(path);
  }
  const run = new Set(each.flatMap((needed) => needed.run));
  const env = new Set([...each.flatMap((needed) => needed.env), ...config.variables]);
  const net = new Set<string>();
  if (http !== undefined) net.add(http);
  // Without users, `serve --http` takes its bearer token from TOOLROUTE_TOKEN (or generates one).
  if (http !== undefined && config.users.length === 0) env.add(TOKEN_VARIABLE);
  const store = options.store ?? options.storeHost;
  // With a store, grants are signed with a secret that every serve process sharing it has.
  if (store !== undefined) env.add(APPROVAL_SECRET_VARIABLE);
  // The key that encrypts the secrets kept in the `--store` file or server.
  if (store !== undefined) env.add(STORE_KEY_VARIABLE);
  if (options.storeHost !== undefined) {
    net.add(options.storeHost);
    for (const name of REDIS_CLIENT_ENV) env.add(name);
  }
  const sys = new Set<string>();
  const servers = [
    ...Object.entries(config.mcpServers).map(([serverId, server]) => ({
      server,
      ids: { serverId },
    })),
    ...config.users.flatMap((user) =>
      Object.entries(user.mcpServers).map(([serverId, server]) => ({
        server,
        ids: { serverId, userId: user.id },
      }))
    ),
  ];
  for (const { server, ids } of servers) {
    if (isStdioConfig(server)) {
      run.add(server.command);
      for (const name of [...STDIO_ENV, ...NETWORK_ENV]) env.add(name);
      if (server.sandbox !== "none") {
        const paths = config.path === undefined
          ? undefined
          : hostServerPaths({ scope: config.path, ...ids });
        const needs = sandboxedServerNeeds(server, { paths, serverId: ids.serverId });
        for (const name of needs.sys) sys.add(name);
        for (const program of needs.run) run.add(program);
        // A folder that holds paths listed already takes their place (one flag, no excess).
        for (const [list, paths] of [[read, needs.read], [write, needs.write]]) {
          for (const path of paths) {
            if (list.some((root) => within(root, path))) continue;
            const kept = list.filter((listed) => !within(path, listed));
            list.splice(0, list.length, ...kept, path);
          }
        }
        for (const host of needs.net) net.add(host);
        // The proxy socket's folder is under the user's runtime folder when it names one.
        if (needs.sys.length > 0) env.add(RUNTIME_DIR_VARIABLE);
      }
    } else {
      const url = URL.parse(server.url);
      if (url !== null) net.add(url.host);
    }
  }
  // The lock is written too, so that one set of flags runs `lock` as well as `serve`, `tools`
  // and `call` (the tools cannot write it: it is a protected path when inside the workspace).
  for (const path of [options.audit, options.store, lockPath(config), names]) {
    if (path !== undefined && !write.some((root) => within(root, path))) write.push(path);
  }
  return {
    read,
    write: options.tokenFile === undefined ? write : [...write, options.tokenFile],
    run: [...run].sort(),
    env: [...env].sort(),
    net: [...net].sort(),
    sys: [...sys].sort(),
  };
}

/**
 * The exact `deno run` flags for {@linkcode cliPermissions}, in a stable order, ending with
 * `--no-prompt`.
 */
export function cliDenoFlags(needed: CliPermissions): string[] {
  const flags: string[] = [];
  for (const name of ["read", "write", "run", "env", "net", "sys"] as const) {
    if (needed[name].length > 0) flags.push(`--allow-${name}=${needed[name].join(",")}`);
  }
  flags.push("--no-prompt");
  return flags;
}

/** What the process lacks and holds beyond a config's needs. */
export interface CliPermissionReport {
  /** Flags of permissions the config needs and the process lacks. */
  missing: string[];
  /** Flags of permissions the process holds beyond the config's needs. */
  excess: string[];
  /**
   * Programs the config runs that are not installed (not on `PATH`): no flag grants them, so
   * they are not in `missing`.
   */
  absent: string[];
}

/**
 * Compares the process's permissions with {@linkcode cliPermissions}: the built-ins' check
 * (`checkPermissions`), plus each path, program, variable and host of the config.
 *
 * @tags allow-read
 * @param needed What the config needs.
 */
export function checkCliPermissions(
  config: ToolrouteConfig,
  needed: CliPermissions,
): CliPermissionReport {
  const reports = config.builtins !== false
    ? servedContexts(config).map(checkPermissions)
    : [noBuiltinsReport(config)];
  const report = {
    missing: reports.flatMap((each) => each.missing),
    excess: [...new Map(reports.flatMap((each) => each.excess).map((gap) => [gap.flag, gap]))
      .values()],
  };
  const missing = new Set<string>(report.missing.map((gap) => gap.flag));
  const probe = (descriptor: Deno.PermissionDescriptor, flag: string) => {
    if (!granted(descriptor)) missing.add(flag);
  };
  for (const path of needed.read) probe({ name: "read", path }, `--allow-read=${path}`);
  for (const path of needed.write) probe({ name: "write", path }, `--allow-write=${path}`);
  // Deno cannot grant a program that is not on PATH: name it as not installed, not as a flag.
  const absent = needed.run.filter((command) =>
    !granted({ name: "run", command }) && programInstalled(command) === false
  );
  for (const command of needed.run) {
    if (!absent.includes(command)) probe({ name: "run", command }, `--allow-run=${command}`);
  }
  for (const command of absent) missing.delete(`--allow-run=${command}`);
  for (const variable of needed.env) {
    // Proxy and CA variables are passed to stdio children when readable; without the grant
    // they are skipped, which is no reason to refuse to start.
    if (NETWORK_ENV.includes(variable)) continue;
    probe({ name: "env", variable }, `--allow-env=${variable}`);
  }
  for (const host of needed.net) probe({ name: "net", host }, `--allow-net=${host}`);
  for (const kind of needed.sys) {
    probe({ name: "sys", kind } as Deno.PermissionDescriptor, `--allow-sys=${kind}`);
  }
  const excess = report.excess.filter((gap: PermissionGap) =>
    !(gap.value !== undefined && gap.name === "net" && needed.net.includes(gap.value)) &&
    !(gap.value !== undefined && gap.name === "run" && needed.run.includes(gap.value)) &&
    // A path inside one the config needs written (a sandboxed server's root, the temporary
    // folder of its proxy) is granted by that need, not in excess.
    !(gap.value !== undefined && gap.name === "write" &&
      needed.write.some((root) => within(root, gap.value!)))
  ).map((gap) => gap.flag);
  return { missing: [...missing], excess, absent };
}

/**
 * The built-ins' part of the check when none are served: nothing is missing, and every unscoped
 * grant, a write to the would-be workspace and `bash`/`bwrap` are in excess.
 */
function noBuiltinsReport(
  config: ToolrouteConfig,
): { missing: PermissionGap[]; excess: PermissionGap[] } {
  const excess: PermissionGap[] = [];
  for (const name of ["read", "write", "run", "env", "net", "sys", "ffi"] as const) {
    if (granted({ name } as Deno.PermissionDescriptor)) excess.push(gap(name));
  }
  const workspace = config.context.workspace;
  if (!excess.some((gap) => gap.name === "write") && granted({ name: "write", path: workspace })) {
    excess.push(gap("write", workspace));
  }
  if (!excess.some((gap) => gap.name === "run")) {
    for (const command of ["bash", "bwrap"]) {
      if (granted({ name: "run", command })) excess.push(gap("run", command));
    }
  }
  return { missing: [], excess };
}

/**
 * What a stdio server in its own sandbox needs of the serve process (see `spawnSandboxed`):
 * `bash` and `bwrap` to start it (bash also finds its program, runtime and caches, so the
 * process reads none of them); reading its `sandbox.readOnly` paths and its roots, which it also
 * writes; its own package cache (written: made when missing); with a network, the folder of the
 * proxy's socket, the socket itself (Deno grants a Unix socket only by its exact path), the
 * user's id (the folder's owner is checked) and the hosts the proxy reaches. Without a config
 * file (`paths` undefined), the socket is in a new temporary folder.
 */
function sandboxedServerNeeds(
  server: McpStdioServerConfig,
  { paths, serverId }: { paths: ServerPaths | undefined; serverId: string },
): { run: string[]; read: string[]; write: string[]; net: string[]; sys: string[] } {
  const sandbox = typeof server.sandbox === "object" ? server.sandbox : {};
  const allow = typeof sandbox.network === "object" ? sandbox.network.allow : [];
  const hosts = [
    ...allow,
    ...(sandbox.network === "none" ? [] : launcherRegistries(server.command)),
  ];
  const network = hosts.length > 0;
  const fixed = network && paths !== undefined ? socketPathOf(paths, serverId) : undefined;
  // Without a fixed socket, a new temporary folder: TMPDIR's, else (unset or not readable) Deno's
  // default.
  const folder = fixed?.socketFolder ?? hostEnv("TMPDIR") ?? "/tmp";
  const cache = paths?.cache === undefined ? [] : [paths.cache];
  return {
    run: ["bash", "bwrap"],
    read: [...sandbox.readOnly ?? [], ...sandbox.roots ?? [], ...(network ? [folder] : [])],
    write: [...sandbox.roots ?? [], ...cache, ...(network ? [folder] : [])],
    // Deno's --allow-net has no wildcard: a `*.example.com` entry needs its names added by hand.
    net: [
      ...hosts.filter((host) => !host.startsWith("*.")),
      ...(fixed !== undefined ? [`unix:${fixed.socket}`] : []),
    ],
    sys: fixed !== undefined ? ["uid"] : [],
  };
}
