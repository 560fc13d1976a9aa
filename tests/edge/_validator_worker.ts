/**
 * A test worker that reaches a tool with an `outputSchema` through an SDK client, with the
 * validator the request's `validator` query parameter names: `cfworker` (no code generation) or
 * `sdk-default` (ajv; a mounted server then gets no client-side validator). `/remote` lists a remote server's tools through `McpGateway`; `/mounted`
 * mounts an SDK `McpServer` in-process and calls its tool. Answers JSON: `{ names, missing }` or
 * `{ names, result }`, or `{ error }` with status 500.
 *
 * @module
 */

import { cfWorkerJsonSchemaValidator, McpGateway, ToolRouter } from "../../mod.ts";
import { McpServer } from "../../src/core/mcp/mcp_sdk.ts";
import { forecastTools } from "./_forecast_tools.ts";

/** The worker's bindings. */
export interface ValidatorWorkerEnv {
  /** The remote server's endpoint. */
  REMOTE_MCP_URL: string;
}

export default {
  /**
   * Lists or calls the forecast tool with a fresh router.
   *
   * @param request The HTTP request: `/remote` or `/mounted`, with `?validator=`.
   * @param env The bindings.
   * @returns The JSON answer.
   */
  async fetch(request: Request, env: ValidatorWorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    const jsonSchemaValidator = url.searchParams.get("validator") === "cfworker"
      ? cfWorkerJsonSchemaValidator()
      : undefined;
    if (url.pathname === "/remote") {
      const gateway = new McpGateway({
        servers: { weather: { url: env.REMOTE_MCP_URL } },
        jsonSchemaValidator,
      });
      const router = new ToolRouter({ gateway });
      try {
        const toolSet = await router.expose({ mcpServers: ["weather"] });
        return Response.json({ names: toolSet.names, missing: toolSet.missing });
      } finally {
        await router.close();
      }
    }
    const router = new ToolRouter({ jsonSchemaValidator });
    try {
      const server = new McpServer({ name: "local", version: "1.0.0" });
      forecastTools(server, { initHeaders: request.headers });
      await router.mountMcpServer("local", server);
      const toolSet = await router.expose({ mcpServices: ["local"] });
      const result = await toolSet.invoke("local_forecast", { city: "Oslo" });
      return Response.json({ names: toolSet.names, result });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    } finally {
      await router.close();
    }
  },
};
