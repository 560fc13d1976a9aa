/**
 * A test worker: a web host that connects its users' accounts through `McpGateway`'s OAuth, in
 * workerd. One gateway per isolate (tokens in its `MemoryStore`); the user is the `x-user`
 * header (a real host reads its session). `/expose` answers `{ names, missing }`, `/call?tool=`
 * `{ text, isError }`, and `/oauth/callback` (the redirect URI) completes the authorization with
 * `completeAuthorization()`: `{ done }`, or `{ error }` with status 400.
 *
 * @module
 */

import { McpGateway, McpOAuth, ToolRouter } from "../../mod.ts";

/** The worker's bindings. */
export interface OAuthWorkerEnv {
  /** The OAuth-protected MCP server's endpoint. */
  REMOTE_MCP_URL: string;
}

let state: { gateway: McpGateway; router: ToolRouter } | undefined;

function host(env: OAuthWorkerEnv, origin: string) {
  if (state !== undefined) return state;
  const gateway = new McpGateway({
    oauth: new McpOAuth({ redirectUrl: `${origin}/oauth/callback` }),
    // Timers and streams do not outlive a request in workerd: list again after 0 ms.
    toolListTtlMs: 0,
  });
  for (const user of ["alice", "bob"]) {
    gateway.addUserServer(user, "crm", { url: env.REMOTE_MCP_URL });
  }
  return state = { gateway, router: new ToolRouter({ gateway }) };
}

export default {
  /**
   * Exposes, calls, or completes an authorization, for the `x-user` user.
   *
   * @param request The HTTP request.
   * @param env The bindings.
   * @returns The JSON answer.
   */
  async fetch(request: Request, env: OAuthWorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    const { gateway, router } = host(env, url.origin);
    const userId = request.headers.get("x-user") ?? "";
    try {
      if (url.pathname === "/oauth/callback") {
        await gateway.completeAuthorization(userId, "crm", request.url);
        return Response.json({ done: true });
      }
      const toolSet = await router.expose({ mcpServers: ["crm"], userId });
      if (url.pathname === "/call") {
        const result = await toolSet.call(url.searchParams.get("tool") ?? "", {});
        return Response.json({ text: result.text, isError: result.isError });
      }
      return Response.json({ names: toolSet.names, missing: toolSet.missing });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 400 });
    }
  },
};
