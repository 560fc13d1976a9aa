import { deadline } from "@std/async";
import { stripAnsiCode } from "@std/fmt/colors";
import { parseJSONRPCMessage } from "../../core/mcp/mcp_sdk.ts";
import type { McpJsonRpcMessage, McpTransport } from "../../core/mcp/mcp_transport.ts";
import { JsonLineReader, type OversizedLine } from "./_json_line_reader.ts";
import { salvageResponseId } from "./_salvage_response_id.ts";
import {
  mayDownload,
  NETWORK_ENV,
  stdioChildCommand,
  type StdioServerCommand,
} from "./stdio_child_command.ts";
import { spawnStdioServer } from "./_stdio_spawn.ts";
import { stdioExitReason, type StdioPathSeen, stdioStartError } from "./_stdio_failure.ts";
import type { SandboxedChild } from "../sandbox/spawn_sandboxed.ts";

/** Options of {@linkcode DenoStdioClientTransport}. */
export interface DenoStdioClientTransportOptions {
  /** Largest JSON-RPC message read from the server, in bytes. Default: 64 MiB. */
  maxMessageBytes?: number;
  /**
   * How long `close()` waits after SIGTERM before SIGKILL, in milliseconds. Default: 2000.
   * (Before SIGTERM, a server gets 250 ms to exit by itself once its stdin is closed.)
   */
  killGraceMs?: number;
  /**
   * Host variables passed to the child when set, besides the minimal set. Default: the network
   * variables (`NETWORK_ENV`: proxies, CA bundles); leave a name out to keep it from children.
   */
  inheritEnv?: readonly string[];
  /**
   * Connect deadline of the first start, in this process, of a command that may download before
   * it answers (`npx -y`, `bunx`, `uvx`, `deno run`), in milliseconds. Default: 120000.
   */
  firstConnectTimeoutMs?: number;
  /**
   * Called when the server runs unconfined because bubblewrap is missing (its config did not
   * ask for a sandbox), with what is unconfined and how to install bubblewrap.
   */
  onUnconfined?: (warning: string) => void;
  /**
   * The config the server comes from (its path), with the server's id and user: a sandboxed
   * server then has its egress proxy socket at a fixed path (which `toolroute flags` lists) and
   * keeps its own package cache between starts (see `serverPaths`). Without it, the socket is
   * in a new temporary folder and each start downloads its packages again.
   */
  identity?: { readonly scope: string; readonly serverId: string; readonly userId?: string };
}

/** Commands (with their arguments) that answered once in this process: downloads are done. */
const answeredOnce = new Set<string>();

const STDERR_TAIL = 4096;
/** How long close() lets a server exit on its own after stdin closes, before SIGTERM. */
const STDIN_GRACE_MS = 250;
/** How long output is still read after the child exited, before the pipes are let go. */
const PIPE_DRAIN_MS = 250;
const encoder = new TextEncoder();

/**
 * An MCP client transport that runs a stdio server as a child process with `Deno.Command`:
 * newline-delimited JSON-RPC over the child's stdin and stdout.
 *
 * The child gets a minimal environment and, when it is Deno, `--no-prompt` and no permission
 * beyond the config's flags (see {@linkcode stdioChildCommand}). When the child exits, the
 * transport closes at once and fails the requests in flight with the exit code and the end of
 * stderr, so pending calls end with `upstream_unavailable`. `close()` closes the child's stdin,
 * then sends SIGTERM, then SIGKILL, and waits for it to exit. A transport runs one child, once.
 *
 * Requires `allow-run` permission for the command, and `allow-env` for the inherited variables.
 *
 * @tags allow-run, allow-env
 */
export class DenoStdioClientTransport implements McpTransport {
  /** Called with each message from the server. */
  onmessage?: (message: McpJsonRpcMessage) => void;
  /** Called on a fault that does not close the transport (a malformed line, a failed write). */
  onerror?: (error: Error) => void;
  /** Called once when the transport closes, whatever closed it. */
  onclose?: () => void;

  readonly #config: StdioServerCommand;
  readonly #maxMessageBytes: number;
  readonly #killGraceMs: number;
  readonly #inheritEnv: readonly string[];
  readonly #firstConnectMs: number;
  readonly #options: DenoStdioClientTransportOptions;
  #starting = false;
  #endReason?: string;
  #passed: string[] = [];
  /** The child's `PATH` and what it did not get of the host's, for start and exit messages. */
  #seen: StdioPathSeen;
  #heard = false;
  #answered = false;
  #child?: Deno.ChildProcess;
  #sandboxed?: SandboxedChild;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #done?: Promise<void>;
  #closed = false;
  #stopping = false;
  #stderr = "";
  /** Ids of the client's requests not answered yet, failed with the exit reason on a crash. */
  readonly #pending = new Set<number | string>();
  /** The messages of the chunk being read, handed on in order by `#deliver`. */
  readonly #inbox: McpJsonRpcMessage[] = [];

  /**
   * Prepares the transport; `start()` (called by the SDK client's `connect`) spawns the child.
   *
   * @param config The server's command, arguments, environment and working directory.
   * @param options Message size limit and kill grace period.
   */
  constructor(config: StdioServerCommand, options: DenoStdioClientTransportOptions = {}) {
    this.#config = config;
    this.#maxMessageBytes = options.maxMessageBytes ?? 64 * 1024 * 1024;
    this.#killGraceMs = options.killGraceMs ?? 2000;
    this.#inheritEnv = options.inheritEnv ?? NETWORK_ENV;
    this.#firstConnectMs = options.firstConnectTimeoutMs ?? 120_000;
    this.#options = options;
    this.#seen = { command: config.command, unread: [] };
  }

  /**
   * The longer connect deadline of a first start that may download (see
   * `firstConnectTimeoutMs`); `undefined` once the command answered in this process.
   */
  get connectTimeoutMs(): number | undefined {
    if (!mayDownload(this.#config) || answeredOnce.has(this.#key())) return undefined;
    return this.#firstConnectMs;
  }

  /**
   * Why connecting may have stalled: a child that printed nothing gets a sentence naming the
   * variables it was given and pointing at the config's `env`; one that wrote to stderr, the end
   * of it.
   *
   * @returns The explanation, or `undefined` before start.
   */
  describeStall(): string | undefined {
    if (!this.#child) return undefined;
    const tail = stripAnsiCode(this.#stderr).replace(/\s+/g, " ").trim();
    if (this.#heard || tail !== "") {
      return tail === "" ? undefined : `its stderr ends: ${tail.slice(-300)}`;
    }
    return `the stdio server "${this.#config.command}" printed nothing. It ran with only ` +
      `these host variables: ${this.#passed.join(", ") || "none"}; if it needs others (a proxy, ` +
      `a CA bundle, an API key), add them under "env" in its config`;
  }

  /**
   * Why the server went away, once it exited by itself: its exit code, the sandbox limit that
   * killed it (`killed: memory limit 256 MiB`), the end of its stderr.
   *
   * @returns The reason, or `undefined` while it runs or after `close()`.
   */
  endReason(): string | undefined {
    return this.#endReason;
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * Always `null` (stderr is read here, see {@linkcode stderrTail}). It is there for the SDK
   * client, which knows a stdio transport by `pid` and `stderr`: on stdio, a server that does not
   * answer `server/discover` is a 2025 server and gets `initialize` on the same pipe.
   */
  readonly stderr: null = null;

  /** The last 4 KB the child wrote to stderr, for diagnostics. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /**
   * Spawns the child: in its own bubblewrap sandbox unless its config says `"sandbox": "none"`
   * or bubblewrap is missing (see `stdioSandboxPlan`). Rejects when the command cannot start
   * (not found, not permitted, a sandbox asked for and bubblewrap missing).
   */
  start(): Promise<void> {
    if (this.#child || this.#closed || this.#starting) {
      return Promise.reject(new Error("The stdio transport was already started; create a new one"));
    }
    this.#starting = true;
    let resolved: ReturnType<typeof stdioChildCommand>;
    try {
      resolved = stdioChildCommand(this.#config, { inheritEnv: this.#inheritEnv });
    } catch (error) {
      this.#closed = true;
      return Promise.reject(stdioStartError(error, this.#seen));
    }
    const own = new Set(Object.keys(this.#config.env ?? {}));
    this.#passed = Object.keys(resolved.env).filter((name) => !own.has(name)).sort();
    this.#seen = {
      command: this.#config.command,
      path: resolved.env.PATH,
      unread: Deno.build.os === "windows"
        ? []
        : ["PATH", "HOME"].filter((name) => resolved.env[name] === undefined),
    };
    return spawnStdioServer(this.#config, resolved, this.#options).then(
      ({ child, sandboxed }) => {
        this.#sandboxed = sandboxed;
        this.#child = child;
        if (this.#closed) {
          kill(child, "SIGKILL");
          throw new Error("The stdio transport was closed while its sandbox started");
        }
        this.#wire(child);
      },
      (error) => {
        this.#closed = true;
        throw stdioStartError(error, this.#seen);
      },
    );
  }

  /** Reads the child's stdout and stderr, and finishes the transport when it exits. */
  #wire(child: Deno.ChildProcess): void {
    this.#writer = child.stdin.getWriter();
    const stdout = child.stdout.getReader();
    const stderr = child.stderr.getReader();
    const reading = Promise.all([this.#readStdout(stdout, child), this.#readStderr(stderr)]);
    this.#done = child.status.then(async (status) => {
      // What the child wrote before it exited is still read, but a grandchild that inherited the
      // pipes (a wrapper's background process) must not keep the transport open.
      if (!await settlesWithin(reading, PIPE_DRAIN_MS)) {
        await Promise.allSettled([stdout.cancel(), stderr.cancel()]);
        await reading;
      }
      await this.#finish(status);
    });
  }

  /** Writes one message as a line to the child's stdin. */
  async send(message: McpJsonRpcMessage): Promise<void> {
    if (!this.#writer || this.#closed) throw new Error("The stdio server is not running");
    const { id, method } = message as { id?: number | string; method?: unknown };
    if (id !== undefined && method !== undefined) this.#pending.add(id);
    await this.#writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  }

  /** Stops the child and waits until it has exited and its pipes are closed. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#done) {
      if (!this.#closed) {
        this.#closed = true;
        this.onclose?.();
      }
      return;
    }
    this.#stopping = true;
    // As the MCP spec asks: close stdin, then SIGTERM if the server lingers, then SIGKILL.
    this.#writer?.close().catch(() => {});
    if (await settlesWithin(this.#done, STDIN_GRACE_MS)) return;
    kill(child, "SIGTERM");
    if (await settlesWithin(this.#done, this.#killGraceMs)) return;
    kill(child, "SIGKILL");
    await this.#done;
  }

  async #readStdout(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    child: Deno.ChildProcess,
  ): Promise<void> {
    const lines = new JsonLineReader(
      this.#maxMessageBytes,
      (line) => this.#onLine(line),
      (line) => this.#onOversized(line),
    );
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.#heard = true;
        lines.push(chunk.value);
        await this.#deliver();
      }
    } catch (error) {
      if (!this.#closed) this.#report(error);
    }
    lines.end();
    await this.#deliver();
    // The server cannot answer any more: stop it, so pending calls end now, not at their deadline.
    kill(child, "SIGKILL");
  }

  async #readStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        const text = this.#stderr + decoder.decode(chunk.value, { stream: true });
        this.#stderr = text.slice(-STDERR_TAIL);
      }
    } catch {
      // The pipe broke with the child; the tail so far is kept.
    }
  }

  #onLine(line: string): void {
    let message: McpJsonRpcMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(line)) as McpJsonRpcMessage;
    } catch (error) {
      const text = `The server sent a malformed message: ${line.slice(0, 200)}`;
      return this.#fail(salvageResponseId(line.slice(0, 256), line.slice(-256)), text, error);
    }
    const { id, method } = message as { id?: number | string; method?: unknown };
    if (id !== undefined && method === undefined) this.#pending.delete(id);
    if (!this.#answered) {
      this.#answered = true;
      answeredOnce.add(this.#key());
    }
    this.#inbox.push(message);
  }

  /**
   * Hands on the messages of one chunk in order. The SDK runs a notification's handler one
   * microtask after receiving it, but drops a request's progress handler at once when its answer
   * arrives: a server's last progress reports and its answer, read in one chunk, would lose the
   * reports. A microtask after each notification lets its handler run first.
   */
  async #deliver(): Promise<void> {
    const inbox = this.#inbox;
    for (let i = 0; i < inbox.length; i++) {
      const message = inbox[i];
      this.onmessage?.(message);
      if (!("id" in message) && i + 1 < inbox.length) await Promise.resolve();
    }
    inbox.length = 0;
  }

  /** A message too large to hold: its request fails at once, the connection stays. */
  #onOversized(line: OversizedLine): void {
    const text =
      `The server sent a message of ${line.bytes} bytes, more than the limit of ${this.#maxMessageBytes}`;
    this.#fail(salvageResponseId(line.head, line.tail), text);
  }

  /** Fails the request a broken response was for, or reports the fault when it has no id. */
  #fail(id: number | string | undefined, text: string, cause?: unknown): void {
    if (id === undefined) return this.#report(new Error(text, { cause }));
    this.#pending.delete(id);
    this.#inbox.push({ jsonrpc: "2.0", id, error: { code: -32603, message: text } });
  }

  #key(): string {
    return JSON.stringify([this.#config.command, this.#config.args ?? [], this.#config.cwd ?? ""]);
  }

  #report(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }

  async #finish(status: Deno.CommandStatus): Promise<void> {
    await this.#writer?.abort().catch(() => {});
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#stopping) {
      // Requests in flight fail with why the server went away (the SDK would only say
      // "Connection closed"): a start-up error on stderr becomes the gateway's last error.
      const plain = stripAnsiCode(this.#stderr);
      const limit = this.#sandboxed?.limitReason(status.code, plain);
      const message = stdioExitReason({ ...status, limit }, { ...this.#seen, stderr: plain });
      this.#endReason = message;
      for (const id of this.#pending) {
        this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32000, message } });
      }
    }
    this.#pending.clear();
    this.onclose?.();
  }
}

/** Whether a promise settles within `ms` milliseconds (its rejection counts as settled). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return deadline(promise.then(() => true, () => true), ms).catch(() => false);
}

function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // Already exited.
  }
}
