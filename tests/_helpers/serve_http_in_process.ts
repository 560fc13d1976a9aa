/**
 * `toolroute serve --http` in this process, on 127.0.0.1 with a free port: the config built with
 * `buildRouter` and served by `serveHttp` with fixed bearer tokens, in a fresh temporary
 * workspace. For tests that talk to serve as real clients over HTTP without starting a process.
 *
 * @module
 */
import { buildRouter } from "../../src/deno/cli/build_router.ts";
import { type HttpAuth, serveHttp } from "../../src/deno/cli/serve_http.ts";
import type { ServeContext } from "../../src/deno/cli/serve_stdio.ts";
import type { ToolrouteConfig } from "../../src/deno/cli/toolroute_config.ts";

/** Options of {@linkcode startServeHttp}. */
export interface ServeHttpOptions {
  /** Bearer token → user id. */
  tokens: Record<string, string>;
  /** `serve --defer`. */
  defer?: boolean;
  /** Files written into the workspace first: relative path → text. */
  files?: Record<string, string>;
  /** The workspace's temporary folder's name prefix. */
  prefix?: string;
}

/** A running in-process serve. */
export interface InProcessServe extends AsyncDisposable {
  /** The MCP endpoint. */
  readonly url: string;
  /** The workspace folder (removed on dispose). */
  readonly workspace: string;
}

/**
 * Starts serve with the config's parts over a base of no modules, no servers and no users.
 *
 * @param config Config parts; `context` defaults to the temporary workspace, `expose` to `{}`.
 * @param options Tokens, defer and workspace files.
 * @returns The endpoint; dispose it to stop serve and remove the workspace.
 */
export async function startServeHttp(
  config: Partial<ToolrouteConfig> | ((workspace: string) => Partial<ToolrouteConfig>),
  options: ServeHttpOptions,
): Promise<InProcessServe> {
  const workspace = await Deno.makeTempDir({ prefix: options.prefix ?? "toolroute_serve_" });
  for (const [path, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${workspace}/${path}`, text);
  }
  const parts = typeof config === "function" ? config(workspace) : config;
  const full: ToolrouteConfig = {
    context: { workspace },
    modules: [],
    expose: {},
    mcpServers: {},
    users: [],
    http: {},
    variables: [],
    ...parts,
  };
  const served = await buildRouter(full, { defer: options.defer });
  const listening = Promise.withResolvers<string>();
  const controller = new AbortController();
  const context: ServeContext = {
    served,
    config: full,
    io: {
      out: () => {},
      err: (line) => {
        const url = line.match(/at (http:\S+\/mcp)/)?.[1];
        if (url !== undefined) listening.resolve(url);
      },
    },
    stop: controller.signal,
    toolsChanged: new Set(),
  };
  const auth: HttpAuth = { tokens: options.tokens, anonymous: false, generated: false };
  const finished = serveHttp(context, {
    http: { hostname: "127.0.0.1", port: 0, loopback: true },
    auth,
  });
  finished.catch((error) => listening.reject(error));
  const url = await listening.promise;
  return {
    url,
    workspace,
    async [Symbol.asyncDispose]() {
      controller.abort();
      await finished;
      await served.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}
