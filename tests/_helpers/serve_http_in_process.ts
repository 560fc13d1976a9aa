/**
 * `toolroute serve --http` in this process, on 127.0.0.1 with a free port: the config built with
 * `buildRouter` and served by `serveHttp` with fixed bearer tokens, in a fresh temporary
 * workspace. For tests that talk to serve as real clients over HTTP without starting a process.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "../../src/core/mcp/mcp_sdk.ts";
import type { ToolCallEvent } from "../../src/core/tool_call_types.ts";
import {
  buildRouter,
  type BuildRouterOptions,
  type ServedRouter,
} from "../../src/deno/cli/build_router.ts";
import { ANONYMOUS, type HttpAuth, serveHttp } from "../../src/deno/cli/serve_http.ts";
import type { ServeContext } from "../../src/deno/cli/serve_stdio.ts";
import type { ToolrouteConfig } from "../../src/deno/cli/toolroute_config.ts";

/** The one bearer token of a serve started without `tokens` (as serve generates one). */
export const ANONYMOUS_TOKEN = "single-token-0123456789";

/** Options of {@linkcode startServeHttp}. */
export interface ServeHttpOptions {
  /** Bearer token → user id; default: {@linkcode ANONYMOUS_TOKEN} for no user, as generated. */
  tokens?: Record<string, string>;
  /** `serve --defer`. */
  defer?: boolean;
  /** Files written into the workspace first: relative path → text. */
  files?: Record<string, string>;
  /** The workspace's temporary folder's name prefix. */
  prefix?: string;
  /** `buildRouter`'s other options (gateway events, store, …); its calls are also kept in `events`. */
  router?: Omit<BuildRouterOptions, "defer">;
  /** Tell the clients when a server's tools change, as `serve_command` wires the gateway's events. */
  notifyToolsChanged?: boolean;
}

/** A running in-process serve. */
export interface InProcessServe extends AsyncDisposable {
  /** The MCP endpoint. */
  readonly url: string;
  /** Its port. */
  readonly port: number;
  /** The workspace folder (removed on dispose). */
  readonly workspace: string;
  /** The router serve serves. */
  readonly served: ServedRouter;
  /** What `serveHttp` was given (its tools-changed listeners among them). */
  readonly context: ServeContext;
  /** Every line serve printed: stderr as is, stdout prefixed `out: `. */
  readonly logs: string[];
  /** One event per call. */
  readonly events: ToolCallEvent[];
  /** Stops serve (the stop signal), waits until `serveHttp` returned, and removes the workspace. */
  stop(): Promise<void>;
}

/**
 * The config serve starts from: no modules, no servers, no users, over a workspace.
 *
 * @param workspace The workspace folder.
 * @param parts Config parts on top.
 * @returns The full config.
 */
export function baseConfig(
  workspace: string,
  parts: Partial<ToolrouteConfig> = {},
): ToolrouteConfig {
  return {
    context: { workspace },
    modules: [],
    expose: {},
    mcpServers: {},
    users: [],
    http: {},
    variables: [],
    ...parts,
  };
}

/**
 * Starts serve with the config's parts over {@linkcode baseConfig}.
 *
 * @param config Config parts; `context` defaults to the temporary workspace, `expose` to `{}`.
 * @param options Tokens, defer, workspace files and the router's options.
 * @returns The endpoint; dispose it to stop serve and remove the workspace.
 */
export async function startServeHttp(
  config: Partial<ToolrouteConfig> | ((workspace: string) => Partial<ToolrouteConfig>),
  options: ServeHttpOptions = {},
): Promise<InProcessServe> {
  const workspace = await Deno.makeTempDir({ prefix: options.prefix ?? "toolroute_serve_" });
  for (const [path, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${workspace}/${path}`, text);
  }
  const full = baseConfig(workspace, typeof config === "function" ? config(workspace) : config);
  const events: ToolCallEvent[] = [];
  const toolsChanged = new Set<(userId?: string) => void>();
  const { onEvent, onGatewayEvent } = options.router ?? {};
  const served = await buildRouter(full, {
    ...options.router,
    defer: options.defer,
    onEvent: (event) => {
      events.push(event);
      onEvent?.(event);
    },
    onGatewayEvent: (event) => {
      if (options.notifyToolsChanged && event.type === "tools_changed") {
        for (const notify of toolsChanged) notify(event.userId);
      }
      onGatewayEvent?.(event);
    },
  });
  const logs: string[] = [];
  const listening = Promise.withResolvers<string>();
  const controller = new AbortController();
  const context: ServeContext = {
    served,
    config: full,
    io: {
      out: (line) => logs.push(`out: ${line}`),
      err: (line) => {
        logs.push(line);
        const url = line.match(/at (http:\S+\/mcp)/)?.[1];
        if (url !== undefined) listening.resolve(url);
      },
    },
    stop: controller.signal,
    toolsChanged,
  };
  const auth: HttpAuth = options.tokens === undefined
    ? { tokens: { [ANONYMOUS_TOKEN]: ANONYMOUS }, anonymous: true, generated: true }
    : { tokens: options.tokens, anonymous: false, generated: false };
  const finished = serveHttp(context, {
    http: { hostname: "127.0.0.1", port: 0, loopback: true },
    auth,
  });
  finished.catch((error) => listening.reject(error));
  const url = await listening.promise;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      controller.abort();
      await finished;
      await served.close();
      await Deno.remove(workspace, { recursive: true });
    })();
  return {
    url,
    port: Number(new URL(url).port),
    workspace,
    served,
    context,
    logs,
    events,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Options of {@linkcode connectAs}. */
export interface ConnectAsOptions {
  /** The era to speak; default: the first the client negotiates. */
  era?: "legacy" | "modern";
  /** Called on each `notifications/tools/list_changed`. */
  onToolListChanged?: () => void;
}

/**
 * An MCP client (2.x SDK) connected to serve with a bearer token.
 *
 * @param url The MCP endpoint.
 * @param token The bearer token.
 * @param options The era and a tool-list listener.
 * @returns The connected client.
 */
export async function connectAs(
  url: string,
  token: string,
  options: ConnectAsOptions = {},
): Promise<Client> {
  const { era, onToolListChanged } = options;
  const client = new Client(
    { name: "test", version: "1.0.0" },
    era === undefined
      ? {}
      : { versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
  );
  if (onToolListChanged !== undefined) {
    client.setNotificationHandler("notifications/tools/list_changed", onToolListChanged);
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
