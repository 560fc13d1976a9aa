/**
 * An OAuth-protected MCP server and its authorization servers, as one `fetch` handler: a small
 * but real world for the gateway's OAuth tests (PKCE S256 checked, codes single-use, refresh
 * tokens revocable, tokens bound to their issuer). Web-standard only, so the same world runs
 * injected as `fetch` (core tests, no permissions) or served on loopback (edge test).
 *
 * The resource is `<resource>/mcp` with the tools `whoami`, answering the login of the token
 * that the call carried, `fail_echoing_token`, failing with the token in its message, and
 * `echo_token`, answering with it (text, resource link, structured content). The user's consent is {@linkcode OAuthWorld.consent}, a function: it
 * plays the browser at the authorization URL and returns the redirect.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "../../src/core/mcp/mcp_sdk.ts";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

/** Options of {@linkcode createOAuthWorld}. */
export interface OAuthWorldOptions {
  /** `"2026-07-28"`: the MCP server speaks only that revision (no 2025 serving). */
  era?: "2025" | "2026-07-28";
  /** Origin of the MCP server. Default: `https://mcp.example.com`. */
  resource?: string;
  /** Origins of the authorization servers; the first is in use. Default: two example ones. */
  issuers?: string[];
  /** Lifetime of access tokens, seconds. Default: 3600. */
  expiresIn?: number;
  /** Delay of every token response, ms (to hold a refresh open). Default: 0. */
  tokenDelayMs?: number;
  /** Machine clients (`client_credentials`) by client id, each with the login it acts as. */
  clientCredentials?: Record<string, string>;
}

interface Grant {
  login: string;
  issuer: string;
  clientId: string;
  challenge: string;
  redirectUri: string;
  scope?: string;
}

interface Token {
  login: string;
  issuer: string;
  expiresAt: number;
}

/** The world and what it saw. */
export interface OAuthWorld {
  /** Answers every request of the world. */
  fetch: typeof fetch;
  /** The MCP endpoint. */
  mcpUrl: string;
  /** Plays the user `login` consenting at `authorizationUrl`; returns the redirect URL. */
  consent(authorizationUrl: string, login: string, extra?: Record<string, string>): string;
  /** Makes the resource use another authorization server (and only accept its tokens). */
  switchIssuer(issuer: string): void;
  /** Revokes every refresh token issued so far. */
  revokeRefreshTokens(): void;
  /** Makes the MCP server refuse every bearer token (`true`) or check them again (`false`). */
  refuseBearers(refuse: boolean): void;
  /** The bearer tokens the MCP server received, in order. */
  readonly bearers: string[];
  /** Token requests by issuer and grant type, with the refresh token or client id sent. */
  readonly tokenRequests: {
    issuer: string;
    grant: string;
    refreshToken?: string;
    clientId?: string;
  }[];
  /** Registrations by issuer. */
  readonly registrations: { issuer: string; clientId: string }[];
  /** Every URL fetched, in order. */
  readonly requests: string[];
  /** The JSON-RPC methods the MCP server served (after the token check). */
  readonly methods: string[];
  /** Every access and refresh token issued (to look for in logs). */
  readonly issued: string[];
}

/**
 * Creates the world.
 *
 * @param options Origins, token lifetime and delays.
 * @returns The world.
 */
export function createOAuthWorld(options: OAuthWorldOptions = {}): OAuthWorld {
  const resource = options.resource ?? "https://mcp.example.com";
  const issuers = options.issuers ?? ["https://auth.example.com", "https://auth2.example.com"];
  let current = issuers[0];
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, Token>();
  const refreshTokens = new Map<string, Token & { revoked: boolean }>();
  let serial = 0;
  let refusing = false;
  const world: OAuthWorld = {
    mcpUrl: `${resource}/mcp`,
    bearers: [],
    tokenRequests: [],
    registrations: [],
    requests: [],
    methods: [],
    issued: [],
    fetch: async (input, init) => {
      const request = new Request(input, init);
      world.requests.push(request.url);
      const url = new URL(request.url);
      if (url.origin === resource) return await resourceAnswer(request, url);
      if (issuers.includes(url.origin)) return await authorizationAnswer(request, url);
      throw new TypeError(`fetch failed: no such host ${url.host}`);
    },
    consent(authorizationUrl, login, extra = {}) {
      const url = new URL(authorizationUrl);
      const q = url.searchParams;
      if (q.get("code_challenge_method") !== "S256") throw new Error("PKCE S256 missing");
      const code = `code-${++serial}`;
      grants.set(code, {
        login,
        issuer: url.origin,
        clientId: q.get("client_id")!,
        challenge: q.get("code_challenge")!,
        redirectUri: q.get("redirect_uri")!,
        scope: q.get("scope") ?? undefined,
      });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      if (q.get("state") !== null) back.searchParams.set("state", q.get("state")!);
      back.searchParams.set("iss", url.origin);
      for (const [key, value] of Object.entries(extra)) back.searchParams.set(key, value);
      return back.href;
    },
    switchIssuer(issuer) {
      current = issuer;
    },
    revokeRefreshTokens() {
      for (const token of refreshTokens.values()) token.revoked = true;
    },
    refuseBearers(refuse) {
      refusing = refuse;
    },
  };

  async function resourceAnswer(request: Request, url: URL): Promise<Response> {
    const metadataUrl = `${resource}/.well-known/oauth-protected-resource/mcp`;
    if (url.href === metadataUrl) {
      return Response.json({ resource: `${resource}/mcp`, authorization_servers: [current] });
    }
    if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
    const bearer = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (bearer) world.bearers.push(bearer);
    const token = bearer === undefined ? undefined : tokens.get(bearer);
    if (
      refusing || token === undefined || token.issuer !== current || token.expiresAt <= Date.now()
    ) {
      return new Response(JSON.stringify({ error: "invalid_token" }), {
        status: 401,
        headers: { "www-authenticate": `Bearer resource_metadata="${metadataUrl}"` },
      });
    }
    if (options.era === "2026-07-28") {
      const modern = createMcpHandler(() => crmServer(token, bearer), { legacy: "reject" });
      world.methods.push(...await methodsOf(request));
      return await modern.fetch(request);
    }
    world.methods.push(...await methodsOf(request));
    const server = crmServer(token, bearer);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  }

  function crmServer(token: Token, bearer: string | undefined): McpServer {
    const server = new McpServer({ name: "crm", version: "1.0.0" });
    server.registerTool("whoami", { description: "The user of the token" }, () => ({
      content: [{ type: "text", text: token.login }],
    }));
    server.registerTool("fail_echoing_token", { description: "Fails, echoing the token" }, () => ({
      content: [{ type: "text", text: `Token ${bearer} lacks a permission` }],
      isError: true,
    }));
    server.registerTool("echo_token", { description: "Answers with the token" }, () => ({
      content: [
        { type: "text", text: `Token ${bearer}` },
        { type: "resource_link", uri: `https://crm.example/?token=${bearer}`, name: "token" },
      ],
      structuredContent: { token: bearer },
    }));
    return server;
  }

  async function authorizationAnswer(request: Request, url: URL): Promise<Response> {
    const issuer = url.origin;
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (url.pathname === "/register" && request.method === "POST") {
      const body = await request.json();
      const clientId = `client-${issuer.replace(/\W/g, "")}-${++serial}`;
      world.registrations.push({ issuer, clientId });
      return Response.json({ ...body, client_id: clientId }, { status: 201 });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(await request.text());
      if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
      const grant = form.get("grant_type") ?? "";
      const refreshToken = form.get("refresh_token") ?? undefined;
      world.tokenRequests.push({
        issuer,
        grant,
        ...(refreshToken === undefined ? {} : { refreshToken }),
        ...(form.get("client_id") === null ? {} : { clientId: form.get("client_id")! }),
      });
      let login: string;
      if (grant === "authorization_code") {
        const code = grants.get(form.get("code") ?? "");
        grants.delete(form.get("code") ?? "");
        if (code === undefined || code.issuer !== issuer) return invalidGrant();
        if (await s256(form.get("code_verifier") ?? "") !== code.challenge) return invalidGrant();
        login = code.login;
      } else if (grant === "refresh_token") {
        const old = refreshTokens.get(refreshToken ?? "");
        if (old === undefined || old.revoked || old.issuer !== issuer) return invalidGrant();
        login = old.login;
      } else if (grant === "client_credentials") {
        const basic = request.headers.get("authorization")?.match(/^Basic (.+)$/)?.[1];
        const clientId = basic === undefined
          ? form.get("client_id") ?? ""
          : decodeURIComponent(atob(basic).split(":")[0]);
        const machine = options.clientCredentials?.[clientId];
        if (machine === undefined) {
          return Response.json({ error: "invalid_client" }, { status: 401 });
        }
        login = machine;
      } else {
        return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
      }
      const n = ++serial;
      const expiresIn = options.expiresIn ?? 3600;
      const access = `at-${login}-${n}`;
      const refresh = `rt-${login}-${n}`;
      tokens.set(access, { login, issuer, expiresAt: Date.now() + expiresIn * 1000 });
      refreshTokens.set(refresh, { login, issuer, expiresAt: Infinity, revoked: false });
      world.issued.push(access, refresh);
      return Response.json({
        access_token: access,
        token_type: "Bearer",
        expires_in: expiresIn,
        refresh_token: refresh,
      });
    }
    return new Response("not found", { status: 404 });
  }

  return world;
}

function invalidGrant(): Response {
  return Response.json({ error: "invalid_grant" }, { status: 400 });
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest))).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** The JSON-RPC methods of a request's body. */
async function methodsOf(request: Request): Promise<string[]> {
  if (request.method !== "POST") return [];
  try {
    const parsed = await request.clone().json();
    return (Array.isArray(parsed) ? parsed : [parsed])
      .map((message) => message?.method)
      .filter((method): method is string => typeof method === "string");
  } catch {
    return [];
  }
}
