import { ToolRouter } from "../../core/tool_router.ts";
import { McpOAuth } from "../../core/mcp/gateway/oauth/mcp_oauth.ts";
import type { McpGateway } from "../../core/mcp/gateway/mcp_gateway.ts";
import type { ToolCallEvent } from "../../core/tool_call_types.ts";
import type { McpGatewayEvent } from "../../core/mcp/gateway/mcp_gateway_types.ts";
import type { ToolSet } from "../../core/tool_set.ts";
import type { MissingTool } from "../../core/tool_source.ts";
import { builtinTools } from "../builtins/builtin_tools.ts";
import { loadModules } from "./load_modules.ts";
import { connectAccountsTool, OAUTH_START_PATH, type SignInLink } from "./oauth_callback.ts";
import { withBashProgress } from "./progress_heartbeat.ts";
import { besideConfig, hasMcpServers, type ToolrouteConfig } from "./toolroute_config.ts";
import { sharedApprovalSecret } from "./approval_secret.ts";
import { UsageError } from "./usage_error.ts";
import type { ApprovalHandler } from "../../core/policy_types.ts";
import type { AuditSink } from "../../core/audit_sink.ts";
import type { KeyValueStore } from "../../core/store/key_value_store.ts";
import type { PinningOptions, PinStore } from "../../core/mcp/gateway/pin_store.ts";
import { LOCK_HINT } from "./lock_command.ts";
import { lockPath, readToolLock, storeFromLock } from "./tool_lock.ts";
import { startupFiles } from "./startup_files.ts";
import { filesInside, withStartupProtection } from "./startup_protection.ts";
import { isPerUserWorkspace, makeUserWorkspace, userContext } from "./user_workspace.ts";
import type { BuiltinContext } from "../../core/tool_source.ts";
import { DeferredClients } from "./deferred_clients.ts";
import { configGateway } from "./config_gateway.ts";
import { TOOL_NAMES_FILE, ToolNamesFile } from "./tool_names_file.ts";

/** The router a config describes, and the tool set each user is served. */
export interface ServedRouter extends AsyncDisposable {
  readonly router: ToolRouter;
  /** What the next start runs or reads as config, inside the workspace: protected from the tools. */
  readonly startupFiles: readonly string[];
  /** Start-up files with more than one hard link (another name could rewrite them). */
  readonly linkedStartupFiles: readonly string[];
  /**
   * The tool set of one user (or of nobody): exactly what the config exposes.
   *
   * @param userId The user id, from a token or `--user`.
   * @param signal Aborts connecting.
   * @param client The MCP session: with `defer`, what a client's searches loaded is its own.
   */
  expose(userId?: string, signal?: AbortSignal, client?: string): Promise<ToolSet>;
  /** Closes the gateway, the modules' services and background processes. */
  close(): Promise<void>;
  /** The gateway, when the config has MCP servers. */
  readonly gateway?: McpGateway;
  /** The gateway's MCP authorization, with `serve --http`'s redirect URI and MCP servers. */
  readonly oauth?: McpOAuth;
  /**
   * The servers waiting for a user to sign in, each with a fresh single-use link to serve's
   * first hop (for the person only: never put in model-visible text). Empty without OAuth.
   */
  signInLinks(userId?: string): Promise<SignInLink[]>;
  /** The tool lock file in force (`toolroute.lock` beside the config), if any. */
  readonly lock?: { path: string; tools: number };
}

/** Options of {@linkcode buildRouter}. */
export interface BuildRouterOptions {
  /** Receives one event per call. */
  onEvent?: (event: ToolCallEvent) => void;
  /** Receives the gateway's connection events (connected, failed, tools changed, …). */
  onGatewayEvent?: (event: McpGatewayEvent) => void;
  /** Decides the policy's asks (`toolroute call` on a terminal). */
  approve?: ApprovalHandler;
  /**
   * The OAuth redirect URI served by the caller (`serve --http`): enables the MCP authorization
   * flow and adds the `connect_accounts` tool that asks the person to sign in through their
   * client (links go through serve's `/oauth/start` first hop, never to the model).
   */
  oauthRedirectUrl?: string;
  /** Receives one audit record per decision (`serve --audit`). */
  audit?: AuditSink;
  /**
   * Where state shared by serve processes is kept (`serve --store`): pins when there is no lock
   * file, used approvals, grants, limit counts and OAuth tokens, with the approval secret they are
   * signed with (`TOOLROUTE_APPROVAL_SECRET` when set), and the servers' last known tool lists.
   * Default: memory, and the tool lists in `toolroute.names.json` beside the config.
   */
  store?: KeyValueStore;
  /**
   * Files serve writes and trusts (`trustFiles`: the `--store` database and its journals, the
   * `--audit` file): protected from the built-in tools like the start-up files.
   */
  trustFiles?: readonly string[];
  /** Defer the tools (`serve --defer`) when the config's `expose.defer` does not say. */
  defer?: boolean;
  /**
   * Longest wait of an exposure for MCP servers still starting; default: the config's
   * `limits.listWaitMs`, else the gateway's. `Infinity` (one-shot commands) waits for each
   * server's connect deadline.
   */
  listWaitMs?: number;
  /**
   * Asked at each exposure: the only MCP servers it connects (`toolroute call` of a tool whose
   * server is known), or `undefined` for every server the config exposes (the default).
   */
  onlyServers?: () => readonly string[] | undefined;
}

/**
 * Builds the router of a config: the built-ins for its workspace, the functions and local
 * services of its modules, and a gateway with its global and per-user MCP servers.
 *
 * Each user's tool set has the built-ins of that user alone (sandbox session, `/tmp`, PID
 * namespace, limits, background processes); with `{user}` in `workspace` also a folder of their
 * own, created (mode 0700) when their tool set is first exposed.
 *
 * Throws a {@linkcode UsageError} for a module that cannot be loaded.
 *
 * @tags allow-read, allow-write, allow-run, allow-env, allow-net
 */
export async function buildRouter(
  config: ToolrouteConfig,
  options: BuildRouterOptions = {},
): Promise<ServedRouter> {
  // The last known tool lists (without a store: beside the config) exist before the start-up
  // files are computed, so serve's own first write is not taken for a planted file.
  const namesPath = options.store === undefined ? besideConfig(config, TOOL_NAMES_FILE) : undefined;
  const names = options.store ??
    (namesPath === undefined ? undefined : new ToolNamesFile(namesPath));
  if (names instanceof ToolNamesFile) await names.create();
  // What the next start runs or reads as config, computed before any module runs: the tools
  // must not be able to rewrite it (RT-2).
  const startup = await startupFiles(config);
  const { functions, mcpServices } = await loadModules(config.modules);
  // Built-ins only when the config asks for them: an mcp.json grants no file access.
  // With {user} the config's workspace is a template: no request runs in it (its default
  // context names no folder), each user gets `userContext` (see `contextOf`).
  const perUser = isPerUserWorkspace(config.context.workspace);
  const builtins = config.builtins !== false
    ? builtinTools(withStartupProtection(config.context, startup, { trusted: options.trustFiles }))
    : undefined;
  const contexts = new Map<string, BuiltinContext>();
  const contextOf = async (userId: string | undefined): Promise<BuiltinContext | undefined> => {
    if (!perUser || builtins === undefined || userId === undefined) return undefined;
    let context = contexts.get(userId);
    if (context === undefined) {
      const own = userContext(config.context, userId);
      await makeUserWorkspace(own.workspace, userId);
      context = withStartupProtection(own, startup, { trusted: options.trustFiles });
      contexts.set(userId, context);
    }
    return context;
  };
  const hasServers = hasMcpServers(config);
  // With `serve --store`, approvals (their secret and used ids) and OAuth tokens live in the
  // store too, so several serve processes on it answer one population of users.
  const oauth = hasServers && options.oauthRedirectUrl !== undefined
    ? new McpOAuth({ redirectUrl: options.oauthRedirectUrl, store: options.store })
    : undefined;
  const pins = await cliPinning(config, options.store);
  const listWaitMs = options.listWaitMs ?? config.listWaitMs;
  const gateway = hasServers
    ? configGateway(config, {
      onEvent: options.onGatewayEvent,
      pinning: pins.pinning,
      oauth,
      // Names as the last run gave them, so a server down at start renames no other's tool.
      ...(names === undefined ? {} : { toolNames: { store: names } }),
      ...(listWaitMs === undefined ? {} : { listWaitMs }),
    })
    : undefined;
  // Exposing again (for the servers only) starts fresh authorizations; each gets a ticket link.
  const signInLinks = async (userId?: string): Promise<SignInLink[]> => {
    if (oauth === undefined) return [];
    const start = new URL(OAUTH_START_PATH, options.oauthRedirectUrl);
    const links: SignInLink[] = [];
    for (const entry of (await served.expose(userId)).missing) {
      if (entry.selection !== "mcpServers" || !/Authorization required/.test(entry.reason)) {
        continue;
      }
      const ticket = await oauth.ticket(userId, entry.name);
      if (ticket === undefined) continue;
      start.searchParams.set("ticket", ticket);
      links.push({ serverId: entry.name, link: start.href });
    }
    return links;
  };
  if (oauth !== undefined) functions.push(connectAccountsTool(signInLinks));
  const router = new ToolRouter({
    builtins: builtins && withBashProgress(builtins),
    functions,
    mcpServices,
    gateway,
    onEvent: options.onEvent,
    timeoutMs: config.callTimeoutMs,
    maxResultChars: config.maxResultChars,
    policy: config.policy,
    store: options.store,
    approve: options.approve,
    audit: options.audit,
    ...(options.store === undefined
      ? {}
      : { approvalSecret: await sharedApprovalSecret(options.store) }),
  });
  const expose = config.expose;
  const close = () => router.close();
  // Without MCP servers (whose tools come and go) or a policy (whose gate a tool set carries), a
  // user's tool set never changes: it is built once, not again for every request it serves.
  const fixed = gateway === undefined && config.policy === undefined
    ? new Map<string | undefined, Promise<ToolSet>>()
    : undefined;
  const defer = expose.defer ?? (options.defer === true ? true : undefined);
  const clients = defer === undefined || defer === false
    ? undefined
    : new DeferredClients(defer === true ? [] : defer.keep ?? []);
  const served: ServedRouter = {
    router,
    gateway,
    oauth,
    startupFiles: filesInside(config.context, startup.files),
    linkedStartupFiles: startup.linked,
    expose(userId?: string, signal?: AbortSignal, client?: string): Promise<ToolSet> {
      if (clients !== undefined) return exposeDeferred(userId, signal, client);
      const known = fixed?.get(userId);
      if (known !== undefined) return known;
      // Per-request sets (MCP servers or a policy) of one client share one session, so a result
      // cut in one request is read (`read_result`) in the next.
      const made = exposeNow(userId, signal, {
        session: JSON.stringify([userId ?? null, client ?? null]),
      });
      if (fixed !== undefined) {
        fixed.set(userId, made);
        made.catch(() => fixed.delete(userId)); // a failure is not kept
      }
      return made;
    },
    signInLinks,
    close,
    [Symbol.asyncDispose]: close,
    lock: pins.lock,
  };
  async function exposeDeferred(
    userId: string | undefined,
    signal: AbortSignal | undefined,
    client: string | undefined,
  ): Promise<ToolSet> {
    const key = clients!.key(userId, client);
    // A set that never changes is served again as it is (its searches grew it in place).
    const last = fixed === undefined ? undefined : clients!.last(key);
    if (last !== undefined) return last;
    const toolSet = await exposeNow(userId, signal, {
      defer: { keep: clients!.keepOf(key) },
      session: key,
    });
    clients!.remember(key, toolSet);
    return toolSet;
  }
  async function exposeNow(
    userId?: string,
    signal?: AbortSignal,
    deferred: { defer?: { keep: string[] }; session?: string } = {},
  ): Promise<ToolSet> {
    const user = config.users.find((entry) => entry.id === userId);
    const only = options.onlyServers?.();
    const context = await contextOf(user?.id);
    const selection = (connect: boolean) => ({
      builtins: builtins === undefined ? [] : expose.builtins ?? [...builtins.names],
      functions: [
        ...(expose.functions ?? functions.map((tool) => tool.name))
          .filter((name) => name !== "connect_accounts"),
        ...(connect ? ["connect_accounts"] : []),
      ],
      mcpServices: expose.mcpServices ?? mcpServices.map((service) => service.name),
      mcpServers: [
        ...(expose.mcpServers ?? Object.keys(config.mcpServers)),
        ...Object.keys(user?.mcpServers ?? {}),
      ].filter((id) => only?.includes(id) ?? true),
      userId,
      ...(context === undefined ? {} : { context }),
      signal,
      ...deferred,
    });
    const toolSet = await router.expose(selection(false));
    // `connect_accounts` is offered only while a server waits for the user to authorize.
    const waiting = oauth !== undefined &&
      toolSet.missing.some((entry) => /Authorization required/.test(entry.reason));
    return waiting ? await router.expose(selection(true)) : toolSet;
  }
  return served;
}

/**
 * Finds a configured user by id; throws a {@linkcode UsageError} naming the known ones, and when
 * no user is given for a workspace with `{user}` (a folder per user: it names none).
 */
export function checkUser(config: ToolrouteConfig, userId: string | undefined): string | undefined {
  const known = config.users.map((user) => `"${user.id}"`).join(", ");
  if (userId === undefined) {
    if (config.builtins !== false && isPerUserWorkspace(config.context.workspace)) {
      throw new UsageError(
        `The workspace "${config.context.workspace}" is a folder per user: pass --user ID (one of ${known})`,
      );
    }
    return undefined;
  }
  if (config.users.some((user) => user.id === userId)) return userId;
  throw new UsageError(`Unknown user "${userId}"; the config's users are: ${known || "none"}`);
}

/**
 * The CLI's pinning: with a `toolroute.lock` beside the config, exactly its pins (a tool missing
 * from it or different is withheld); otherwise trust on first use, in `store` (shared by
 * several `serve` processes) or in memory. Also the lock file in force, when there is one.
 */
async function cliPinning(
  config: ToolrouteConfig,
  store: PinStore | undefined,
): Promise<{ pinning: PinningOptions; lock?: { path: string; tools: number } }> {
  const path = lockPath(config);
  const lock = path === undefined ? undefined : await readToolLock(path);
  if (path === undefined || lock === undefined) {
    return { pinning: store === undefined ? {} : { store } };
  }
  const pins = await storeFromLock(lock);
  return {
    pinning: { store: pins, trustOnFirstUse: false, reviewHint: LOCK_HINT },
    lock: { path, tools: (await pins.list(["pins"])).length },
  };
}

/** Describes names of the config that could not be exposed, one line each. */
export function describeMissing(missing: readonly MissingTool[]): string[] {
  return missing.map((entry) => `not exposed: ${entry.selection} "${entry.name}": ${entry.reason}`);
}
