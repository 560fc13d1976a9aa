/**
 * toolroute on an edge runtime: a Cloudflare Worker (any runtime with a `fetch` export) that
 * serves one request's allowlisted tools as a stateless MCP endpoint at `/mcp`.
 *
 * The router holds a function tool, a local MCP service and a remote MCP server reached over
 * Streamable HTTP through `McpGateway`. Each isolate builds its router and gateway on its first
 * request and keeps them: the gateway's connections are that isolate's own pool, nothing is
 * shared between isolates, and no MCP session is kept (any isolate can answer any request).
 *
 * Bundle: `deno task bundle:edge` (→ `dist/edge_worker.js`, no `node:` import, no `src/deno/`);
 * proof: `tests/edge/workerd_test.ts` runs the bundle in workerd. Bindings: `REMOTE_MCP_URL` (the
 * remote server), `ALLOWED_HOSTS` (comma-separated `Host` values the endpoint answers; default:
 * loopback only, so set it to the worker's own host when deploying), `TOOL_LIST_TTL_MS` (how long an
 * isolate trusts a remote server's tool list; default 60000: a server's change notifications do
 * not reach an isolate between requests).
 *
 * @module
 */

import { defineMcpService, defineTool, ToolRouter, type ToolSelection } from "@toolroute/toolroute";
import { cfWorkerJsonSchemaValidator, McpGateway, mcpHttpHandler } from "@toolroute/toolroute/mcp";
// A namespace import lets the bundler keep only the zod it needs (`{ z }` keeps all of it).
import * as z from "zod";

/** The worker's bindings. */
export interface EdgeWorkerEnv {
  /** The remote MCP server's Streamable HTTP endpoint. */
  REMOTE_MCP_URL: string;
  /** Comma-separated `Host` values this endpoint answers; default: loopback only. */
  ALLOWED_HOSTS?: string;
  /** How long a remote tool list is trusted, in milliseconds; default: 60000. */
  TOOL_LIST_TTL_MS?: string;
}

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

/** Registered on the router but never exposed: calls to it are refused. */
const resetDatabase = defineTool({
  name: "reset_database",
  description: "Deletes every record",
  input: z.object({}),
  run: () => "every record deleted",
});

const units = defineMcpService({
  name: "units",
  description: "Unit conversions",
  tools: {
    celsius_to_fahrenheit: {
      description: "Converts degrees Celsius to Fahrenheit",
      input: z.object({ celsius: z.number() }),
      run: ({ celsius }) => String(celsius * 9 / 5 + 32),
    },
  },
});

/** What every request may use: the allowlist. */
const ALLOWLIST: ToolSelection = {
  functions: ["add"],
  mcpServices: ["units"],
  mcpServers: ["weather"],
};

/** This worker's MCP endpoint: answers requests, and closes what it holds. */
export interface EdgeEndpoint {
  /** Answers one HTTP request. */
  (request: Request): Promise<Response>;
  /** Closes the gateway's connections (workers never need to; tests and demos do). */
  close(): Promise<void>;
}

/**
 * Builds the endpoint: a router over the three sources, served statelessly at `/mcp`.
 *
 * @param env The worker's bindings.
 * @returns The endpoint.
 */
export function createEdgeEndpoint(env: EdgeWorkerEnv): EdgeEndpoint {
  const gateway = new McpGateway({
    servers: { weather: { url: env.REMOTE_MCP_URL } },
    // Change notifications of a remote server do not reach an isolate between requests.
    toolListTtlMs: Number(env.TOOL_LIST_TTL_MS ?? 60_000),
    // The SDK's default (ajv) compiles output schemas with `new Function`, which edge runtimes forbid.
    jsonSchemaValidator: cfWorkerJsonSchemaValidator(),
  });
  const router = new ToolRouter({ functions: [add, resetDatabase], mcpServices: [units], gateway });
  const handler = mcpHttpHandler({
    tools: ({ signal }) => router.expose({ ...ALLOWLIST, signal }),
    stateless: true,
    allowedHosts: env.ALLOWED_HOSTS?.split(",").map((host) => host.trim()).filter(Boolean),
  });
  return Object.assign((request: Request) => handler(request), {
    async close() {
      await handler.close();
      await router.close();
    },
  });
}

/** This isolate's endpoint, built on its first request (bindings arrive with requests). */
let endpoint: EdgeEndpoint | undefined;

export default {
  /**
   * Answers one request.
   *
   * @param request The HTTP request.
   * @param env The worker's bindings.
   * @returns The MCP response.
   */
  fetch(request: Request, env: EdgeWorkerEnv): Promise<Response> {
    endpoint ??= createEdgeEndpoint(env);
    return endpoint(request);
  },
};
