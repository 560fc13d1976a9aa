import { ToolError } from "../../core/tool_error.ts";
import type {
  BuiltinContext,
  BuiltinRequest,
  BuiltinSource,
  MissingTool,
  RoutedTool,
  SourceResolution,
} from "../../core/tool_source.ts";
import { resolveBuiltinContext, type ResolvedContext } from "./builtin_context.ts";
import { createApplyPatchTool } from "./patch/apply_patch.ts";
import { createReadFileTool } from "./files/read_file.ts";
import { createWriteFileTool } from "./files/write_file.ts";
import { createEditTool } from "./patch/edit.ts";
import { createGlobTool } from "./search/glob.ts";
import { createGrepTool } from "./search/grep.ts";
// The bash tool, its per-context background processes, and the strict start-up check.
import { createBashTool } from "./bash/bash.ts";
import { ProcessTable } from "./bash/process_table.ts";
import { hostFileAccess } from "./files/host_file_access.ts";
import { sessionFileAccess } from "./sandbox/session_file_access.ts";
import { hostSearchAccess } from "./search/host_search_access.ts";
import { sessionSearchAccess } from "./sandbox/session_search_access.ts";
import { SandboxSessions, type SessionSource } from "./sandbox/sandbox_sessions.ts";
import { assertNoExcess } from "./permissions/check_permissions.ts";
import { assertRealRootNotBroad } from "./broad_root.ts";
import { FileResultStore } from "../store/file_result_store.ts";
import { join } from "@std/path";

/** Options of {@linkcode builtinTools}. */
export interface BuiltinToolsOptions {
  /**
   * Throw at start-up when the process holds more Deno permissions than the context needs
   * (for example when it runs under `-A`). Default: `false`.
   */
  strict?: boolean;
  /**
   * With bash sandboxed, close a context's sandbox session after it was unused this long, in
   * milliseconds. Default: 120000. Sessions always close on `close()`.
   */
  sessionIdleMs?: number;
}

/**
 * Below this many users with sandbox sessions, none is let go: a sweep of idle ones runs when the
 * count reaches twice what the last sweep left, so its scan is paid for by as many new users.
 */
const MIN_SESSION_SWEEP = 64;

/** How many users each `builtinTools` instance keeps sandbox sessions for (for tests). */
const sandboxUserCounts = new WeakMap<BuiltinTools, () => number>();

/**
 * How many users a `builtinTools` instance keeps sandbox sessions for, idle ones not let go yet
 * included (for tests).
 */
export function sandboxUsersOf(tools: BuiltinTools): number {
  return sandboxUserCounts.get(tools)?.() ?? 0;
}

/** The built-in tools: the router's built-in slot, with clean-up of background processes. */
export interface BuiltinTools extends BuiltinSource, AsyncDisposable {
  /**
   * `read_file`, `write_file`, `apply_patch`, `edit`, `glob`, `grep`, and `bash` when the default
   * context turns it on.
   */
  readonly names: readonly string[];
  /** The default context, validated, with its defaults filled in. */
  readonly context: ResolvedContext;
  /**
   * Resolves the named tools bound to one request's context (or the default one) and user: each
   * user (`request.userId`; no user is one more) has their own sandbox sessions and background
   * processes, even with a context equal to another user's. Throws a `TypeError` or
   * `RangeError` when the context is malformed.
   */
  resolve(
    names: readonly string[],
    context?: BuiltinContext,
    request?: BuiltinRequest,
  ): SourceResolution;
  /**
   * Stops the background processes and the sandbox session of one context: of the user
   * `request.userId` names (`{}`: of requests without a user), or of every user without
   * `request`.
   */
  closeContext(context: BuiltinContext, request?: BuiltinRequest): Promise<void>;
  /** Stops every background process; later calls to `resolve` throw. */
  close(): Promise<void>;
}

const FILE_TOOLS = ["apply_patch", "edit", "glob", "grep", "read_file", "write_file"] as const;
const ALL_TOOLS = [...FILE_TOOLS, "bash"].sort();

/**
 * Creates the built-in tools confined by a context, for `new ToolRouter({ builtins })`.
 *
 * Every path is checked against the workspace (reads also against `readOnlyRoots`) on its
 * components and again after following symlinks; writes refuse `protectedPaths`. A request may
 * pass its own context to `router.expose({ builtins, context })`; tools are bound to the context
 * of their request, so concurrent requests never see each other's workspace. Throws a
 * `TypeError` or `RangeError` for a malformed context, and a `TypeError` in strict mode when the
 * process holds more permissions than the context needs.
 *
 * Requires `allow-read` for the workspace and read-only roots, `allow-write` for the workspace,
 * and `allow-run` (bash, and bwrap when sandboxed) plus `allow-env` for the context's
 * variables when bash is on; `denoFlags(context)` prints exactly these flags.
 *
 * @example Read a file through the router
 * ```ts
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { builtinTools } from "@toolroute/toolroute/deno";
 * import { assertEquals } from "@std/assert";
 *
 * const workspace = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\n");
 * await using router = new ToolRouter({ builtins: builtinTools({ workspace }) });
 * const tools = await router.expose({ builtins: ["read_file"] });
 * const result = JSON.parse(await tools.invoke("read_file", '{"path":"hello.txt"}'));
 * assertEquals(result.content, "hello\n");
 * await Deno.remove(workspace, { recursive: true });
 * ```
 *
 * @tags allow-read, allow-write, allow-run, allow-env
 * @param context The default context (a request may override it).
 * @param options Start-up options.
 * @returns The built-in source.
 */
export function builtinTools(
  context: BuiltinContext,
  options: BuiltinToolsOptions = {},
): BuiltinTools {
  const defaults = resolveBuiltinContext(context);
  assertRealRootNotBroad(defaults.workspace, context.allowBroadRoots);
  if (options.strict === true) assertNoExcess(defaults);
  // Everything kept between calls is per principal (the request's user): background processes
  // by user and context, sandbox sessions in one SandboxSessions per user (whose keys hold the
  // user too). A user never reaches another's processes, /tmp, PID namespace or limits.
  const processes = new Map<string, ProcessTable>();
  const sessionsByUser = new Map<string | undefined, SandboxSessions>();
  let closed = false;
  let defaultFileTools: Map<string, RoutedTool> | undefined;

  let sweepAt = MIN_SESSION_SWEEP;
  const sessionsOf = (userId: string | undefined): SandboxSessions => {
    let sessions = sessionsByUser.get(userId);
    if (sessions === undefined) {
      // Users come and go: one whose sessions all closed holds nothing worth keeping, and
      // without this every user who ever ran a sandboxed tool would stay.
      if (sessionsByUser.size >= sweepAt) {
        for (const [user, held] of sessionsByUser) if (held.idle) sessionsByUser.delete(user);
        sweepAt = Math.max(MIN_SESSION_SWEEP, 2 * sessionsByUser.size);
      }
      sessions = new SandboxSessions({ idleMs: options.sessionIdleMs, principal: userId });
      sessionsByUser.set(userId, sessions);
    }
    return sessions;
  };
  // A tool asks for its user's sessions at each use (and holds them only while it uses them), so
  // an idle user's instance can be let go: the next use makes a new one.
  const sourceOf = (userId: string | undefined): SessionSource => ({
    // After close() no instance is made again: a use fails as on the closed ones.
    acquire: (ctx, acquiring) =>
      closed
        ? Promise.reject(
          new ToolError("tool_error", "The built-in tools were closed: no sandbox is started"),
        )
        : sessionsOf(userId).acquire(ctx, acquiring),
  });
  const fileTool = (name: string, ctx: ResolvedContext, userId?: string): RoutedTool => {
    // The cached tools are bound to the sessions of no user: only that principal reuses them.
    if (ctx === defaults && userId === undefined) {
      defaultFileTools ??= new Map(
        FILE_TOOLS.map((n) => [n, makeFileTool(n, defaults, sourceOf(undefined))]),
      );
      return defaultFileTools.get(name)!;
    }
    return makeFileTool(name, ctx, sourceOf(userId));
  };
  const bashTool = (ctx: ResolvedContext, userId?: string): RoutedTool => {
    const key = tableKey(ctx, userId);
    let table = processes.get(key);
    if (table === undefined) {
      table = new ProcessTable(ctx);
      processes.set(key, table);
    }
    return createBashTool(ctx, table, { sessions: sourceOf(userId) });
  };
  const closeAll = async (): Promise<void> => {
    closed = true;
    const tables = [...processes.values()];
    processes.clear();
    const sessions = [...sessionsByUser.values()];
    await Promise.allSettled([
      ...tables.map((table) => table.close()),
      ...sessions.map((each) => each.close()),
    ]);
  };

  const tools: BuiltinTools = Object.freeze({
    names: Object.freeze(defaults.bash === false ? [...FILE_TOOLS] : [...ALL_TOOLS]),
    context: defaults,
    // Results a router's budget cut, sealed (the model's tools can read the workspace).
    resultStore: new FileResultStore(join(defaults.workspace, ".toolroute", "results"), {
      root: defaults.workspace,
    }),
    resolve(
      names: readonly string[],
      override?: BuiltinContext,
      request: BuiltinRequest = {},
    ): SourceResolution {
      if (closed) {
        throw new TypeError("Cannot resolve built-in tools: they were closed with close()");
      }
      const ctx = override === undefined ? defaults : resolveBuiltinContext(override);
      if (override !== undefined) assertRealRootNotBroad(ctx.workspace, override.allowBroadRoots);
      const userId = principalOf(request);
      const tools: RoutedTool[] = [];
      const missing: MissingTool[] = [];
      for (const name of names) {
        if ((FILE_TOOLS as readonly string[]).includes(name)) {
          tools.push(fileTool(name, ctx, userId));
        } else if (name === "bash" && ctx.bash !== false) tools.push(bashTool(ctx, userId));
        else missing.push({ selection: "builtins", name, reason: whyMissing(name) });
      }
      return { tools, missing };
    },
    async closeContext(override: BuiltinContext, request?: BuiltinRequest): Promise<void> {
      const ctx = resolveBuiltinContext(override);
      // Every user with a process table (bash resolved) or sandbox sessions held (a sandboxed
      // tool used); a user whose sessions were let go has none to close.
      const users = request === undefined
        ? new Set([
          ...sessionsByUser.keys(),
          ...[...processes.keys()].map((key) => (JSON.parse(key)[0] ?? undefined) as string),
        ])
        : [principalOf(request)];
      const closing: Promise<void>[] = [];
      for (const userId of users) {
        const key = tableKey(ctx, userId);
        const table = processes.get(key);
        processes.delete(key);
        if (table !== undefined) closing.push(table.close());
        const sessions = sessionsByUser.get(userId);
        if (sessions !== undefined) closing.push(sessions.closeContext(ctx));
      }
      await Promise.allSettled(closing);
    },
    close: closeAll,
    [Symbol.asyncDispose]: closeAll,
  });
  sandboxUserCounts.set(tools, () => sessionsByUser.size);
  return tools;
}

function tableKey(ctx: ResolvedContext, userId: string | undefined): string {
  return JSON.stringify([userId ?? null, ctx]);
}

function principalOf(request: BuiltinRequest): string | undefined {
  if (request === null || typeof request !== "object") {
    throw new TypeError(
      'Cannot resolve built-in tools: the request must be an object such as { userId: "alice" }',
    );
  }
  const { userId } = request;
  if (userId !== undefined && typeof userId !== "string") {
    throw new TypeError(
      `Cannot resolve built-in tools: "userId" must be a string, received ${typeof userId}`,
    );
  }
  return userId;
}

function makeFileTool(name: string, ctx: ResolvedContext, sessions: SessionSource): RoutedTool {
  // The tools reach the files inside the context's sandbox session exactly when bash runs
  // sandboxed (only then can a command of the model race the path checks, and only then is
  // bubblewrap known to be wanted and allowed), on the host otherwise.
  const sandboxed = ctx.bash !== false && ctx.bash.sandbox === "bwrap";
  if (name === "glob" || name === "grep") {
    const search = sandboxed ? sessionSearchAccess(ctx, sessions) : hostSearchAccess();
    return name === "glob" ? createGlobTool(ctx, search) : createGrepTool(ctx, search);
  }
  const files = sandboxed ? sessionFileAccess(ctx, sessions) : hostFileAccess(ctx);
  if (name === "read_file") return createReadFileTool(ctx, files);
  if (name === "write_file") return createWriteFileTool(ctx, files);
  if (name === "edit") return createEditTool(ctx, files);
  return createApplyPatchTool(ctx, files);
}

function whyMissing(name: string): string {
  if (name === "bash") {
    return 'bash is off in this context: the host must set bash: true or { sandbox: "bwrap" }';
  }
  return `no built-in tool has this name; the built-in tools are ${ALL_TOOLS.join(", ")}`;
}
