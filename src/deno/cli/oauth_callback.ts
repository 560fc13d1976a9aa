import { z } from "zod";
import { defineTool, type FunctionTool } from "../../core/define_tool.ts";
import type { McpGateway } from "../../core/mcp/gateway/mcp_gateway.ts";
import type { MissingTool } from "../../core/tool_source.ts";

/** The path of `serve --http`'s OAuth redirect endpoint. */
export const OAUTH_CALLBACK_PATH = "/oauth/callback";

/**
 * The `connect_accounts` tool of `serve --http`: lists the MCP servers of the calling user that
 * wait for authorization, with the URL to open for each, so an MCP client can show them.
 *
 * @param missing The missing entries of the user's tool set (exposing again starts new URLs).
 * @returns The tool.
 */
export function connectAccountsTool(
  missing: (userId: string | undefined) => Promise<readonly MissingTool[]>,
): FunctionTool {
  return defineTool({
    name: "connect_accounts",
    description: "Lists the MCP servers that wait for the user to authorize access, each with " +
      "the URL the user opens to sign in. Show the URLs to the user; after signing in, the " +
      "servers' tools appear.",
    input: z.object({}),
    run: async (_args, context) => {
      const waiting = (await missing(context.userId))
        .filter((entry) => /Authorization required/.test(entry.reason))
        .map((entry) =>
          `- ${entry.name}: ${
            entry.reason.replace(/^.*?Authorization required/, "Authorization required")
          }`
        );
      return waiting.length === 0
        ? "Every MCP server that needs authorization is connected."
        : `These MCP servers need the user to sign in:\n${waiting.join("\n")}`;
    },
  });
}

/**
 * Answers `GET /oauth/callback`: completes the authorization whose `state` the URL carries, then
 * tells the user to go back. Answers are plain text (nothing from the URL is rendered as HTML).
 *
 * @param request The browser's request.
 * @param gateway The gateway.
 * @param onAuthorized Told which user's tools changed.
 * @returns The answer.
 */
export async function answerOAuthCallback(
  request: Request,
  gateway: McpGateway,
  onAuthorized: (userId: string | undefined) => void,
): Promise<Response> {
  if (request.method !== "GET") return text(405, "Use GET");
  const target = await gateway.pendingAuthorization(request.url);
  if (target === undefined) {
    return text(400, "This authorization is unknown, expired or used already: start it again.");
  }
  try {
    await gateway.completeAuthorization(target.userId, target.serverId, request.url);
  } catch (error) {
    return text(400, `Authorization failed: ${(error as Error).message}`);
  }
  onAuthorized(target.userId);
  return text(
    200,
    `Authorization for "${target.serverId}" is complete. You can close this window.`,
  );
}

function text(status: number, body: string): Response {
  return new Response(body + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
