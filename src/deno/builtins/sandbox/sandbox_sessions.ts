import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { bashEnvironment } from "../command/bash_environment.ts";
import { bwrapSearchPath } from "../../sandbox/bwrap_search_path.ts";
import { SandboxSession } from "../../sandbox/sandbox_session.ts";
import type { SessionLease } from "../../sandbox/session_process.ts";
import { sandboxMounts, sandboxMountsSync } from "./sandbox_mounts.ts";
import type { ResourceLimits } from "../../sandbox/resource_limits.ts";
import { withResourceLimits } from "../../sandbox/resource_limits.ts";
import { NetworkProxy } from "../../sandbox/network_proxy.ts";

/** Options of {@linkcode SandboxSessions}. */
export interface SandboxSessionsOptions {
  /** Close a session unused for this long, in milliseconds; default 120000 (2 minutes). */
  readonly idleMs?: number;
  /** How long a supervisor may take to start; default 10000 ms. */
  readonly startTimeoutMs?: number;
  /**
   * The user these sessions act for. It is part of every session's key, so a session never
   * serves two principals, whatever their contexts; `builtinTools` keeps one instance per user.
   */
  readonly principal?: string;
}

/** Options of {@linkcode SandboxSessions.acquire}. */
export interface AcquireOptions {
  /**
   * The use only reads (stat, open for reading, list, search): a running session of the context
   * serves it as it is, without computing the mounts again. Read-only binds restrict writing
   * only, and protected paths are readable, so mounts that are out of date cannot let a read do
   * anything that fresh ones would refuse. Default `false`: the mounts are checked.
   */
  readonly reading?: boolean;
}

interface Entry {
  session: SandboxSession;
  leases: number;
  // The idle timer, armed when the last lease ends and not cleared by the next use: when it
  // fires it closes the session only if unused since `lastUsed + idleMs`, else it is set again
  // for the rest. A setTimeout and clearTimeout pair per command cost more than the rest of
  // the lease (tens of microseconds each right after a spawn).
  idle?: ReturnType<typeof setTimeout>;
  lastUsed: number;
  retired: boolean;
}

/**
 * What a tool needs of its user's sandbox sessions: a lease on its context's session. The
 * built-in tools hold this, not the user's {@linkcode SandboxSessions}, so `builtinTools` can let
 * go of a user whose sessions are all closed (see its `sessionsOf`).
 */
export type SessionSource = Pick<SandboxSessions, "acquire">;

/** The default idle time of a session. */
export const SESSION_IDLE_MS = 120_000;

/**
 * The sandbox sessions of one principal (a user) of a `builtinTools` instance: one per context
 * (contexts that differ get their own sandbox, `/tmp`, PID namespace and limits included),
 * started on first use, closed after `idleMs` unused and on `close()`. The principal is part of
 * each session's key: two users never share a session, even with equal contexts.
 *
 * Before every use that may write (a command, a file tool's write), the context's mounts are
 * computed again (`sandboxMounts`, the single hook where protected paths are decided); when they
 * differ from those of the running session (say a `.git` appeared), that session is retired
 * (closed once its running calls end) and a fresh one started, so protections are as current as
 * with one bubblewrap per command. A use that only reads (`reading`) takes the running session
 * as it is: the read-only binds are there against writes, and a write checks them first.
 */
export class SandboxSessions {
  #entries = new Map<string, Entry>();
  #keys = new WeakMap<ResolvedContext, string>();
  #starting = new Map<string, Promise<Entry>>();
  // Every session started and not yet gone, the replaced ones too: a retired session still runs
  // its commands (it closes on its last release), and one closed when idle or retired is still
  // being stopped. close() ends and waits for each, not only those in `#entries`.
  #live = new Set<SandboxSession>();
  #idleMs: number;
  #startTimeoutMs: number;
  #principal: string | undefined;
  #closed = false;
  /** Calls of `acquire` under way: one waits for mounts before its start is in `#starting`. */
  #acquiring = 0;

  /**
   * @param options Idle time and start deadline.
   */
  constructor(options: SandboxSessionsOptions = {}) {
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.#startTimeoutMs = options.startTimeoutMs ?? 10_000;
    this.#principal = options.principal;
    if (!Number.isInteger(this.#idleMs) || this.#idleMs < 0) {
      throw new RangeError(
        `Cannot use sandbox sessions: "idleMs" must be a non-negative integer, received ${this.#idleMs}`,
      );
    }
  }

  /**
   * Takes the context's session for one use, starting it when needed. Throws a `ToolError` when
   * bubblewrap may not run (`permission_denied`) or cannot start (`tool_error`).
   *
   * Requires `allow-run` permission for `bwrap`.
   *
   * @tags allow-run
   * @param options Whether the use only reads.
   */
  async acquire(ctx: ResolvedContext, options: AcquireOptions = {}): Promise<SessionLease> {
    // A use the running session fits as it is takes it before any wait.
    const now = this.leaseNow(ctx, options);
    if (now !== undefined) return now;
    this.#acquiring++;
    try {
      return await this.#acquireAfterWait(ctx);
    } finally {
      this.#acquiring--;
    }
  }

  /**
   * Whether nothing is held: no session running, starting or closing and no `acquire` under
   * way. Such an instance may be let go; a new one for the same principal starts what it needs.
   */
  get idle(): boolean {
    return this.#live.size === 0 && this.#starting.size === 0 && this.#acquiring === 0;
  }

  async #acquireAfterWait(ctx: ResolvedContext): Promise<SessionLease> {
    if (this.#closed) {
      throw new ToolError("tool_error", "The built-in tools were closed: no sandbox is started");
    }
    if (ctx.bash === false) throw new TypeError("Cannot start a sandbox session: bash is off");
    const key = this.#keyOf(ctx);
    const mounts = await sandboxMounts(ctx);
    // Again after the wait: a close() meanwhile did not see this start, and would return while
    // it still ran (its sandbox closed only once started, after close() had returned).
    if (this.#closed) {
      throw new ToolError("tool_error", "The built-in tools were closed: no sandbox is started");
    }
    let entry = this.#entries.get(key);
    if (
      entry !== undefined &&
      (entry.session.ended || entry.session.mountsKey !== JSON.stringify(mounts))
    ) {
      this.#retire(key, entry);
      entry = undefined;
    }
    if (entry === undefined) {
      let starting = this.#starting.get(key);
      if (starting === undefined) {
        starting = this.#start(ctx, mounts, key);
        this.#starting.set(key, starting);
        starting.then(() => this.#starting.delete(key), () => this.#starting.delete(key));
      }
      entry = await starting;
    }
    return this.#lease(key, entry);
  }

  /**
   * {@linkcode acquire} without a wait, for a use that the context's running session fits as it
   * is (a read; or mounts, computed again here, equal to the session's): the same checks, and
   * the same errors thrown (a workspace too large to walk). `undefined` when a session must be
   * started, replaced or waited for, or an error reported (`acquire` does that).
   *
   * Requires `allow-read` permission for the roots.
   *
   * @tags allow-read
   * @param options Whether the use only reads.
   * @returns The lease, or `undefined`.
   */
  leaseNow(ctx: ResolvedContext, options: AcquireOptions = {}): SessionLease | undefined {
    if (this.#closed || ctx.bash === false) return undefined;
    const key = this.#keyOf(ctx);
    const running = this.#entries.get(key);
    if (running === undefined || running.session.ended) return undefined;
    if (options.reading !== true) {
      const mounts = sandboxMountsSync(ctx);
      if (mounts === undefined || running.session.mountsKey !== JSON.stringify(mounts)) {
        return undefined;
      }
    }
    return this.#lease(key, running);
  }

  #lease(key: string, held: Entry): SessionLease {
    held.leases++;
    let released = false;
    return {
      session: held.session,
      release: () => {
        if (released) return;
        released = true;
        held.leases--;
        if (held.leases === 0) this.#idle(key, held);
      },
    };
  }

  /**
   * Closes the session of one context.
   */
  async closeContext(ctx: ResolvedContext): Promise<void> {
    const key = this.#keyOf(ctx);
    const entry = this.#entries.get(key);
    this.#entries.delete(key);
    await entry?.session.close();
  }

  /** Closes every session; later uses throw. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = [...this.#starting.values()];
    await Promise.allSettled(starting);
    this.#entries.clear();
    await Promise.allSettled([...this.#live].map((session) => session.close()));
  }

  async #start(
    ctx: ResolvedContext,
    mounts: Awaited<ReturnType<typeof sandboxMounts>>,
    key: string,
  ): Promise<Entry> {
    if (ctx.bash === false) throw new TypeError("Cannot start a sandbox session: bash is off");
    // Only PATH is needed (to find bubblewrap); nothing of the host's environment goes inside.
    const env = bashEnvironment(["bwrap"], ctx.bash.env.filter((name) => name === "PATH"));
    const path = bwrapSearchPath(env.PATH, [mounts.workspace, ...mounts.readOnlyRoots]);
    const limits: ResourceLimits | undefined = ctx.bash.limits;
    const proxy = ctx.bash.network === undefined
      ? undefined
      : await NetworkProxy.start(ctx.bash.network.allow, ctx.bash.network);
    let session: SandboxSession;
    try {
      session = await SandboxSession.start({
        mounts,
        path,
        startTimeoutMs: this.#startTimeoutMs,
        proxySocket: proxy?.socket,
        tmpfsBytes: limits === undefined ? undefined : limits.tmpMiB * 1024 * 1024,
        wrap: limits === undefined ? undefined : withResourceLimits(limits),
      });
    } catch (error) {
      await proxy?.close();
      throw error;
    }
    if (proxy !== undefined) session.onEnd(() => void proxy.close());
    this.#live.add(session);
    // Ended is not yet gone: close() awaits the wrapper's exit, which follows its clean-up.
    const gone = () => void this.#live.delete(session);
    session.onEnd(() => void session.close().then(gone, gone));
    const entry: Entry = { session, leases: 0, lastUsed: 0, retired: false };
    if (this.#closed) {
      await session.close();
      throw new ToolError("tool_error", "The built-in tools were closed: no sandbox is started");
    }
    this.#entries.set(key, entry);
    session.onEnd(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      clearTimeout(entry.idle);
    });
    return entry;
  }

  // A resolved context is frozen: its key (contexts that are equal share a session, and only
  // within one principal) is kept.
  #keyOf(ctx: ResolvedContext): string {
    let key = this.#keys.get(ctx);
    if (key === undefined) {
      key = JSON.stringify([this.#principal ?? null, ctx]);
      if (Object.isFrozen(ctx)) this.#keys.set(ctx, key);
    }
    return key;
  }

  #retire(key: string, entry: Entry): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    entry.retired = true;
    if (entry.leases === 0) void entry.session.close();
  }

  #idle(key: string, entry: Entry): void {
    if (entry.retired || entry.session.ended) {
      clearTimeout(entry.idle);
      void entry.session.close();
      return;
    }
    entry.lastUsed = performance.now();
    if (entry.idle === undefined) this.#armIdle(key, entry, this.#idleMs);
  }

  #armIdle(key: string, entry: Entry, ms: number): void {
    entry.idle = setTimeout(() => {
      entry.idle = undefined;
      if (entry.leases > 0 || entry.session.ended) return; // the last release arms it again
      const rest = entry.lastUsed + this.#idleMs - performance.now();
      if (rest > 0) return this.#armIdle(key, entry, rest);
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      void entry.session.close();
    }, ms);
  }
}
