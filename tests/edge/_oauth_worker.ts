/**
 * A test worker: a web host that connects its users' accounts through `McpGateway`'s OAuth, in
 * workerd. Each request builds its own gateway (connections do not outlive a request here); the
 * tokens, registrations and pending authorizations live in one store for the isolate (a real
 * worker would use KV or a Durable Object). The user is the `x-user` header (a real host reads its
 * session). `/expose` answers `{ names, missing }`, `/call?tool=` `{ text, isError }`, and
 * `/oauth/callback` (the redirect URI) completes the authorization: `{ done }`, or `{ error }`
 * with status 400.
 *
 * @module
 */

import { ToolRouter } from "../../mod.ts";
import { MemoryStore } from "../../src/core/stores.ts";
import { McpGateway, McpOAuth } from "../../src/core/mcp/mod.ts";

/** The worker's bindings. */
export interface OAuthWorkerEnv {
  /** The OAuth-protected MCP server's endpoint. */
  REMOTE_MCP_URL: string;
}

const store = new MemoryStore();

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
    const userId = request.headers.get("x-user") ?? "";
    const oauth = new McpOAuth({ redirectUrl: `${url.origin}/oauth/callback`, store });
    await using gateway = new McpGateway({ oauth });
    gateway.addUserServer(userId, "crm", { url: env.REMOTE_MCP_URL });
    try {
      if (url.pathname === "/oauth/callback") {
        await oauth.complete(userId, "crm", request.url);
        return Response.json({ done: true });
      }
      const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["crm"], userId });
      if (url.pathname === "/call") {
        // No signal of the caller's: the router makes each call its own, in this request. (A
        // signal shared by calls, made in an earlier request, is refused by workerd: "Cannot
        // perform I/O on behalf of a different request"; the test calls in three requests.)
        const tool = url.searchParams.get("tool") ?? "";
        const result = await toolSet.call(tool, {});
        return Response.json({ text: result.text, isError: result.isError });
      }
      // The host hands the authorization URL to the person (here: the test), never to a model.
      const waiting = oauth.waiting(userId)[0]?.authorizationUrl;
      return Response.json({
        names: toolSet.names,
        missing: toolSet.missing,
        authorizationUrl: waiting,
      });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 400 });
    }
  },
};
