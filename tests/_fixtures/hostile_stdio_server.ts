/**
 * A hostile stdio MCP server for the sandbox's containment tests: each tool makes one attack a
 * server published by anyone could make on the machine of the user who runs it, and answers with
 * exactly what happened (the data it got, or the error it met) as one JSON text, so that a test
 * can assert that the attack ran and whether it was contained. It is meant to be run with every
 * Deno permission (`-A`), as an `npx` server runs with all of its user's rights.
 *
 * Tools (each answers `{ ok, ... }`, `error` naming what failed):
 * - `whoami`: its pid, parent pid, `HOME`, temporary folder and working folder;
 * - `read_file {path}`, `write_file {path, text}`: a file's text / a write;
 * - `env`: its whole environment;
 * - `descriptors`: its open file descriptors (`/proc/self/fd`) and where each leads;
 * - `processes {match}`: how many processes it sees in `/proc`, and those whose command line
 *   holds `match`;
 * - `http_fetch {url}`: `fetch` (which goes through `HTTP_PROXY` when the sandbox sets one);
 * - `proxy_connect {target}`: `CONNECT target` sent to the proxy in its environment;
 * - `tcp_send {hostname, port, data}`: raw TCP, the first bytes of the answer;
 * - `resolve {name, port?}`: a DNS `A` query, to the name server on `127.0.0.1:port` when given;
 * - `fork_bomb {count, seconds}`: starts `count` sleeping processes, says how many it got;
 * - `memory_hog {mib}`: allocates and touches `mib` MiB;
 * - `fill_disk {mib, dir?}`: writes `mib` MiB into its temporary folder (or `dir`), then removes it;
 * - `signal {pid, signal}`: sends a signal to a process;
 * - `foreign_descriptors {match?}`: for each other process it sees in `/proc` (whose command line
 *   holds `match`, when given), its command line and where
 *   each of its descriptors leads (or the error met: reading the link takes the access that
 *   opening it takes);
 * - `freeze`: stops its whole event loop for good, after answering (it never reads its stdin
 *   again, nor ends);
 * - `symlink {target, path}`, `make_dir {path}`: plants a link / a folder (for the host to follow
 *   at the server's next start).
 *
 * Usage: `deno run -A --no-prompt tests/_fixtures/hostile_stdio_server.ts`, or the `npx`-style
 * wrapper `tests/_fixtures/bin/hostile-mcp-server` (a shell script that execs `deno`).
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "hostile-stdio-fixture", version: "1.0.0" });

type Outcome = Record<string, unknown>;

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Registers one attack: whatever it returns or throws becomes the JSON answer. */
/** Set by `freeze`: every later request stops the server's loop for good. */
let frozen = false;

function stopForGood(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

function attack<Shape extends z.ZodRawShape>(
  name: string,
  description: string,
  shape: Shape,
  run: (args: z.infer<z.ZodObject<Shape>>) => Promise<Outcome> | Outcome,
): void {
  server.registerTool(name, { description, inputSchema: z.object(shape) }, async (args) => {
    // A request read before `freeze`'s timer stops the loop stops it at once, unanswered.
    if (frozen) stopForGood();
    let outcome: Outcome;
    try {
      outcome = { ok: true, ...(await run(args as z.infer<z.ZodObject<Shape>>)) };
    } catch (error) {
      outcome = { ok: false, error: describe(error) };
    }
    return { content: [{ type: "text" as const, text: JSON.stringify(outcome) }] };
  });
}

const temporaryFolder = () => Deno.env.get("TMPDIR") || "/tmp";

attack("whoami", "Who and where the server is", {}, () => ({
  pid: Deno.pid,
  ppid: Deno.ppid,
  home: Deno.env.get("HOME"),
  tmp: temporaryFolder(),
  cwd: Deno.cwd(),
}));

attack("read_file", "Reads a file", { path: z.string() }, async ({ path }) => ({
  text: await Deno.readTextFile(path),
}));

attack(
  "write_file",
  "Writes a file",
  { path: z.string(), text: z.string() },
  async ({ path, text }) => {
    await Deno.writeTextFile(path, text);
    return { wrote: path };
  },
);

attack("env", "Its whole environment", {}, () => ({ env: Deno.env.toObject() }));

attack("descriptors", "Its open file descriptors and where each leads", {}, async () => {
  const fds: Record<string, string> = {};
  for await (const entry of Deno.readDir("/proc/self/fd")) {
    try {
      fds[entry.name] = await Deno.readLink(`/proc/self/fd/${entry.name}`);
    } catch {
      // The listing's own descriptor, closed since.
    }
  }
  return { fds };
});

attack(
  "processes",
  "How many processes it can see, and those whose command line holds `match`",
  { match: z.string() },
  async ({ match }) => {
    const processes: { pid: number; cmdline: string }[] = [];
    let count = 0;
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const raw = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
        const cmdline = raw.replaceAll("\0", " ").trim();
        count++;
        if (cmdline.includes(match)) processes.push({ pid: Number(entry.name), cmdline });
      } catch {
        // Gone since the listing.
      }
    }
    return { count, processes };
  },
);

attack("http_fetch", "Fetches a URL", { url: z.string() }, async ({ url }) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.text()).slice(0, 2000) };
});

function proxyAddress(): string | undefined {
  for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]) {
    const value = Deno.env.get(name);
    if (value) return value;
  }
  return undefined;
}

/** Writes `data` to a TCP connection and reads what comes back until the peer closes or 3 s. */
async function exchange(hostname: string, port: number, data: string): Promise<string> {
  const conn = await Deno.connect({ hostname, port });
  try {
    await conn.write(new TextEncoder().encode(data));
    const chunks: string[] = [];
    const buffer = new Uint8Array(4096);
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      const read = await Promise.race([
        conn.read(buffer),
        new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 500)),
      ]);
      if (read === "late") {
        if (chunks.length > 0) break;
        continue;
      }
      if (read === null) break;
      chunks.push(new TextDecoder().decode(buffer.subarray(0, read)));
    }
    return chunks.join("");
  } finally {
    try {
      conn.close();
    } catch {
      // Already closed by the peer.
    }
  }
}

attack(
  "proxy_connect",
  "Asks the proxy in its environment to CONNECT to a target",
  { target: z.string() },
  async ({ target }) => {
    const proxy = proxyAddress();
    if (proxy === undefined) throw new Error("no proxy in the environment");
    const url = new URL(proxy);
    const answer = await exchange(
      url.hostname,
      Number(url.port || 80),
      `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`,
    );
    return { proxy, status: answer.split("\r\n")[0] };
  },
);

attack(
  "tcp_send",
  "Sends bytes over raw TCP",
  { hostname: z.string(), port: z.number(), data: z.string() },
  async ({ hostname, port, data }) => ({
    answer: (await exchange(hostname, port, data)).slice(0, 2000),
  }),
);

attack(
  "resolve",
  "Resolves a name (to the name server on 127.0.0.1:port when given)",
  { name: z.string(), port: z.number().optional() },
  async ({ name, port }) => {
    const nameServer = port === undefined ? undefined : { ipAddr: "127.0.0.1", port };
    const records = await Deno.resolveDns(name, "A", {
      nameServer,
      signal: AbortSignal.timeout(5_000),
    });
    return { records };
  },
);

attack(
  "fork_bomb",
  "Starts many processes",
  { count: z.number(), seconds: z.number() },
  ({ count, seconds }) => {
    let started = 0;
    let error: string | undefined;
    for (; started < count; started++) {
      try {
        new Deno.Command("sleep", {
          args: [String(seconds)],
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).spawn();
      } catch (caught) {
        error = describe(caught);
        break;
      }
    }
    return { started, error };
  },
);

const held: Uint8Array[] = [];
attack("memory_hog", "Allocates and touches memory", { mib: z.number() }, ({ mib }) => {
  let error: string | undefined;
  try {
    for (let i = 0; i < mib; i++) held.push(new Uint8Array(1024 * 1024).fill(i % 255 + 1));
  } catch (caught) {
    error = describe(caught);
  }
  const allocatedMiB = held.length;
  held.length = 0;
  return { allocatedMiB, error };
});

attack(
  "fill_disk",
  "Writes into its temporary folder until done or refused",
  { mib: z.number(), dir: z.string().optional() },
  async ({ mib, dir }) => {
    const path = `${dir ?? temporaryFolder()}/hostile_fill_${Deno.pid}.bin`;
    const chunk = new Uint8Array(1024 * 1024).fill(7);
    let writtenMiB = 0;
    let error: string | undefined;
    const file = await Deno.open(path, { write: true, create: true, truncate: true });
    try {
      for (; writtenMiB < mib; writtenMiB++) {
        let offset = 0;
        while (offset < chunk.length) offset += await file.write(chunk.subarray(offset));
      }
    } catch (caught) {
      error = describe(caught);
    } finally {
      file.close();
      await Deno.remove(path).catch(() => {});
    }
    return { path, writtenMiB, error };
  },
);

attack(
  "signal",
  "Sends a signal to a process",
  { pid: z.number(), signal: z.string() },
  ({ pid, signal }) => {
    Deno.kill(pid, signal as Deno.Signal);
    return { sent: signal, pid };
  },
);

attack("foreign_descriptors", "Other processes' descriptors", {
  match: z.string().optional(),
}, async ({ match }) => {
  const seen: Record<string, { cmdline: string; fds: Record<string, string> }> = {};
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    const at = `/proc/${entry.name}`;
    const cmdline = (await Deno.readTextFile(`${at}/cmdline`).catch(describe))
      .replaceAll("\0", " ").trim();
    if (match !== undefined && !cmdline.includes(match)) continue;
    const fds: Record<string, string> = {};
    try {
      for await (const fd of Deno.readDir(`${at}/fd`)) {
        try {
          // Readable under the same check as opening it (ptrace read access to the process).
          fds[fd.name] = await Deno.readLink(`${at}/fd/${fd.name}`);
        } catch (error) {
          fds[fd.name] = describe(error);
        }
      }
    } catch (error) {
      fds["*"] = describe(error);
    }
    // The start of it (the supervisor's holds its whole script).
    seen[entry.name] = { cmdline: cmdline.slice(0, 300), fds };
  }
  return { seen };
});

server.registerTool("freeze", { description: "Stops reading for good" }, () => {
  // After the answer is written: the loop then waits on nothing, for ever.
  frozen = true;
  setTimeout(stopForGood, 50);
  return { content: [{ type: "text" as const, text: JSON.stringify({ ok: true }) }] };
});

attack(
  "symlink",
  "Plants a symbolic link",
  { target: z.string(), path: z.string() },
  async ({ target, path }) => {
    await Deno.symlink(target, path);
    return { linked: path, target };
  },
);

attack("make_dir", "Makes a folder and its parents", { path: z.string() }, async ({ path }) => {
  await Deno.mkdir(path, { recursive: true });
  return { made: path };
});

await server.connect(new StdioServerTransport());
