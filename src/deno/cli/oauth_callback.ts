import { z } from "zod";
import { defineTool, type FunctionTool } from "../../core/define_tool.ts";
import type { McpOAuth } from "../../core/mcp/gateway/oauth/mcp_oauth.ts";
import { sha256Hex } from "../../core/sha256_hex.ts";

/** The path of `serve --http`'s OAuth redirect endpoint. */
export const OAUTH_CALLBACK_PATH = "/oauth/callback";

/** The path of the first hop: a sign-in link opens it, it binds the browser and redirects. */
export const OAUTH_START_PATH = "/oauth/start";

/** The path where a user, with their bearer token, gets their sign-in links. */
export const OAUTH_STATUS_PATH = "/oauth/status";

/** A server waiting for the user to sign in, with the single-use link to serve's first hop. */
export interface SignInLink {
  serverId: string;
  /** `http://HOST:PORT/oauth/start?ticket=…`: for the person, never for the model. */
  link: string;
}

/**
 * The `connect_accounts` tool of `serve --http`: asks the person behind the call to sign in to
 * each MCP server that waits for them, through their MCP client (URL elicitation). The model
 * gets only which servers wait and whether the person was asked: a sign-in link lets whoever
 * opens it link an account in the user's name, so it never appears in the model's text.
 *
 * @param links The sign-in links of the calling user (each call issues fresh single-use ones).
 */
export function connectAccountsTool(
  links: (userId: string | undefined) => Promise<readonly SignInLink[]>,
): FunctionTool {
  return defineTool({
    name: "connect_accounts",
    description: "Asks the user to sign in to the MCP servers that wait for their authorization " +
      "(the user's MCP client shows the sign-in page; no link is given here). After the user " +
      "signs in, the servers' tools appear.",
    input: z.object({}),
    run: async (_args, context) => {
      const waiting = await links(context.userId);
      if (waiting.length === 0) return "Every MCP server that needs authorization is connected.";
      const lines: string[] = [];
      for (const { serverId, link } of waiting) {
        let asked: string | undefined;
        try {
          const answer = await context.elicit?.({
            message: `Sign in to the MCP server "${serverId}" so toolroute can use it for you.`,
            requestedSchema: {},
            url: link,
          }, context.signal);
          if (answer !== undefined) asked = answer.action;
        } catch {
          asked = undefined; // The client cannot show links: serve's status page has them.
        }
        lines.push(
          `- ${serverId}: ${
            asked === "accept"
              ? "the user was shown the sign-in page in their MCP client"
              : asked === undefined
              ? `waits for the user to sign in; this MCP client cannot show sign-in pages, so the user gets the link from serve's status (${OAUTH_STATUS_PATH}, with their bearer token)`
              : `the user did not open the sign-in page (${asked})`
          }`,
        );
      }
      return `These MCP servers need the user to sign in:\n${lines.join("\n")}`;
    },
  });
}

/**
 * Answers `GET /oauth/start?ticket=…`, the first hop of a sign-in link: redeems the single-use
 * ticket, sets a random cookie that binds this browser to the authorization (HttpOnly,
 * SameSite=Lax, Secure over https; only its digest is kept), and shows a page that names the
 * server and the toolroute user the sign-in is for, with a link on to the authorization server.
 * The person confirms by following it, so a link of another user's sent to them (to make them
 * link their account to that user) is seen for what it is; the page runs no script, cannot be
 * framed, and sends no referrer.
 *
 * @returns The page, or a plain-text refusal.
 */
export async function answerOAuthStart(request: Request, oauth: McpOAuth): Promise<Response> {
  if (request.method !== "GET") return text(405, "Use GET");
  const url = new URL(request.url);
  const redeemed = await oauth.redeemTicket(url.searchParams.get("ticket") ?? "");
  if (redeemed === undefined) {
    return text(
      400,
      "This sign-in link is unknown, expired or used already: ask for a new one from your MCP client.",
    );
  }
  // The authorization endpoint comes from the server's metadata: only a web URL is linked to.
  if (!/^https?:\/\//i.test(redeemed.location)) {
    return text(502, "The authorization server gave an address that is not a web URL: refused.");
  }
  const cookie = [
    `${await cookieName(redeemed.state)}=${redeemed.binding}`,
    `Path=${OAUTH_CALLBACK_PATH}`,
    "HttpOnly",
    "SameSite=Lax",
    "Max-Age=600",
    ...(url.protocol === "https:" ? ["Secure"] : []),
  ].join("; ");
  const who = redeemed.user === "" ? "" : ` for the toolroute user "${redeemed.user}"`;
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body>
<p>${escapeHtml(`Sign in to the MCP server "${redeemed.serverId}"${who}?`)}</p>
<p>Continue only if you asked for this from your own MCP client: the account you sign in with will be used for that user.</p>
<p><a href="${escapeHtml(redeemed.location)}">Continue to the sign-in page</a></p>
</body></html>
`;
  return new Response(page, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "set-cookie": cookie,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
      "x-frame-options": "DENY",
    },
  });
}

/**
 * Answers `GET /oauth/callback`: completes the authorization whose `state` the URL carries, only
 * in the browser that started it through the first hop (its binding cookie is checked before
 * anything is used up: a leaked URL opened elsewhere links nothing), then tells the user to go
 * back. Answers are plain text (nothing from the URL is rendered as HTML).
 *
 * @param options `onAuthorized`, told which user's tools changed.
 */
export async function answerOAuthCallback(
  request: Request,
  oauth: McpOAuth,
  options: { onAuthorized: (userId: string | undefined) => void },
): Promise<Response> {
  const { onAuthorized } = options;
  if (request.method !== "GET") return text(405, "Use GET");
  const target = await oauth.pending(request.url);
  if (target === undefined) {
    return text(400, "This authorization is unknown, expired or used already: start it again.");
  }
  const state = new URL(request.url).searchParams.get("state") ?? "";
  const binding = cookieValue(request, await cookieName(state)) ?? "";
  try {
    await oauth.complete(target.userId, target.serverId, request.url, { binding });
  } catch (error) {
    return text(400, `Authorization failed: ${(error as Error).message}`);
  }
  onAuthorized(target.userId);
  return text(
    200,
    `Authorization for "${target.serverId}" is complete. You can close this window.`,
    { "set-cookie": `${await cookieName(state)}=; Path=${OAUTH_CALLBACK_PATH}; Max-Age=0` },
  );
}

/**
 * Answers `GET /oauth/status` for a user authenticated by their bearer token: the sign-in links
 * of the servers waiting for them (fresh single-use ones), for a client without URL elicitation.
 *
 * @param options Finds the user of a request's token, and that user's links.
 * @returns The plain-text list.
 */
export async function answerOAuthStatus(
  request: Request,
  options: {
    userOf: (request: Request) => Promise<{ userId?: string } | undefined>;
    links: (userId: string | undefined) => Promise<readonly SignInLink[]>;
  },
): Promise<Response> {
  if (request.method !== "GET") return text(405, "Use GET");
  const who = await options.userOf(request);
  if (who === undefined) {
    return text(
      401,
      "Send your bearer token (Authorization: Bearer …) to see your sign-in links.",
      {
        "www-authenticate": "Bearer",
      },
    );
  }
  const links = await options.links(who.userId);
  return text(
    200,
    links.length === 0
      ? "No MCP server waits for you to sign in."
      : `Open each link in your browser to sign in (each works once, for 10 minutes):\n${
        links.map(({ serverId, link }) => `${serverId}: ${link}`).join("\n")
      }`,
  );
}

/** The binding cookie's name: one per authorization, so two sign-ins in one browser coexist. */
async function cookieName(state: string): Promise<string> {
  return `toolroute_oauth_${(await sha256Hex(state)).slice(0, 16)}`;
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body + "\n", {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
  });
}
