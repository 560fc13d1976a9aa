/**
 * The machine a hostile stdio server attacks in the containment tests: a temporary `HOME` with a
 * planted SSH key, another user's private file, a folder outside the server's roots, a sibling
 * process whose environment holds a planted secret (a stand-in for the user's shell), and three
 * loopback listeners that count what reaches them (HTTP, raw TCP, DNS over UDP). Each attack
 * that works shows up on the host as data read or a hit counted.
 *
 * @module
 */
import dgram from "node:dgram";
import { dirname, fromFileUrl } from "@std/path";
import type { McpStdioSandboxSetting, McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";

/** The repository root (the fixture's code and its `deno.json`). */
export const REPO: string = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");

/** The fixture run by `deno run`. */
export const FIXTURE: string = `${REPO}/tests/_fixtures/hostile_stdio_server.ts`;

/** The folder of the `npx`-style bin that execs the fixture. */
export const FIXTURE_BIN: string = `${REPO}/tests/_fixtures/bin`;

/** The Deno cache the servers share with the host (so that they download nothing). */
export const DENO_DIR: string = Deno.env.get("DENO_DIR") ||
  `${Deno.env.get("HOME")}/.cache/deno`;

/** The sandbox setting of a stdio server's config. */
export type SandboxSetting = McpStdioSandboxSetting;

/**
 * The hostile server's config, started the two ways a user starts servers.
 *
 * @param sandbox Its sandbox setting.
 * @param options `npx`: through the `npx`-style bin on `PATH` instead of `deno run`.
 * @returns The config.
 */
export function hostileServer(
  sandbox: SandboxSetting,
  options: { npx?: boolean } = {},
): McpStdioServerConfig {
  const env = { DENO_DIR, NO_COLOR: "1" };
  const config: McpStdioServerConfig = options.npx
    ? {
      command: "hostile-mcp-server",
      env: { ...env, PATH: `${FIXTURE_BIN}:${dirname(Deno.execPath())}:/usr/bin:/bin` },
    }
    : {
      command: Deno.execPath(),
      args: ["run", "-A", "--no-prompt", "--config", `${REPO}/deno.json`, FIXTURE],
      env,
    };
  return { ...config, sandbox };
}

/**
 * What a sandboxed hostile server needs to run at all: its own code and runtime, read-only.
 *
 * @returns The `readOnly` paths.
 */
export function fixtureReadOnly(): string[] {
  return [REPO, dirname(Deno.execPath()), DENO_DIR];
}

/** A loopback listener that counts what reaches it. */
export interface Recorder {
  /** Its port on 127.0.0.1. */
  port: number;
  /** What reached it (request paths, first bytes, or queried names). */
  hits: string[];
}

/** The planted machine; disposing of it removes every file and stops every listener. */
export interface HostileWorld extends AsyncDisposable {
  /** The temporary `HOME` the host runs with while the world lives. */
  home: string;
  /** The planted private key, `HOME/.ssh/id_ed25519`. */
  sshKey: string;
  /** The planted key's text. */
  sshKeyText: string;
  /** Another user's private file. */
  otherUserFile: string;
  /** Its text. */
  otherUserText: string;
  /** A folder the server may read and write when sandboxed. */
  roots: string;
  /** A folder outside its roots (writable by the user). */
  outside: string;
  /** A unique marker, in the sibling's environment and the host's. */
  secret: string;
  /** The name of the planted variable. */
  secretName: string;
  /** The sibling process whose environment holds the secret. */
  siblingPid: number;
  http: Recorder;
  tcp: Recorder;
  dns: Recorder;
}

function queriedName(message: Uint8Array): string {
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length && message[offset] !== 0) {
    const length = message[offset];
    labels.push(new TextDecoder().decode(message.subarray(offset + 1, offset + 1 + length)));
    offset += length + 1;
  }
  return labels.join(".");
}

// An NXDOMAIN answer to a query: its id and question, "no such name".
function nameError(message: Uint8Array): Uint8Array {
  let end = 12;
  while (end < message.length && message[end] !== 0) end += message[end] + 1;
  const answer = new Uint8Array(message.subarray(0, end + 5));
  answer.set([0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0], 2);
  return answer;
}

/**
 * Plants the world and points the host's `HOME` at it (restored on dispose).
 *
 * @returns The world.
 */
export async function plantHostileWorld(): Promise<HostileWorld> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_hostile_" }));
  const home = `${base}/home`;
  const sshKey = `${home}/.ssh/id_ed25519`;
  const marker = crypto.randomUUID();
  // Plain words, not a key's armour: the result's secret scanner must not hide the proof.
  const sshKeyText = `fake private key of the test user ${marker}\n`;
  await Deno.mkdir(`${home}/.ssh`, { recursive: true });
  await Deno.writeTextFile(sshKey, sshKeyText, { mode: 0o600 });
  const otherUserFile = `${base}/other_user/notes.txt`;
  const otherUserText = `another user's private notes ${marker}\n`;
  await Deno.mkdir(`${base}/other_user`, { mode: 0o700 });
  await Deno.writeTextFile(otherUserFile, otherUserText, { mode: 0o600 });
  const roots = `${base}/roots`;
  const outside = `${base}/outside`;
  await Deno.mkdir(roots);
  await Deno.mkdir(outside);

  const secretName = "TOOLROUTE_PLANTED_VALUE";
  const secret = `planted-${marker}`;
  const sibling = new Deno.Command("sleep", {
    args: ["600"],
    env: { [secretName]: secret },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();

  const http: Recorder = { port: 0, hits: [] };
  const httpServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    http.hits.push(new URL(request.url).pathname);
    return new Response("reached the host's loopback");
  });
  http.port = httpServer.addr.port;

  const tcp: Recorder = { port: 0, hits: [] };
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  tcp.port = listener.addr.port;
  const accepting = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(1024);
      const read = await conn.read(buffer).catch(() => null);
      tcp.hits.push(new TextDecoder().decode(buffer.subarray(0, read ?? 0)));
      await conn.write(new TextEncoder().encode("reached the host's raw TCP\n")).catch(() => {});
      conn.close();
    }
  })();

  const dns: Recorder = { port: 0, hits: [] };
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, remote) => {
    dns.hits.push(queriedName(message));
    socket.send(nameError(message), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  dns.port = socket.address().port;

  const hostHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  Deno.env.set(secretName, secret);
  return {
    home,
    sshKey,
    sshKeyText,
    otherUserFile,
    otherUserText,
    roots,
    outside,
    secret,
    secretName,
    siblingPid: sibling.pid,
    http,
    tcp,
    dns,
    async [Symbol.asyncDispose]() {
      if (hostHome === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", hostHome);
      Deno.env.delete(secretName);
      sibling.kill("SIGKILL");
      await sibling.status;
      await httpServer.shutdown();
      listener.close();
      await accepting.catch(() => {});
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await Deno.remove(base, { recursive: true });
    },
  };
}
