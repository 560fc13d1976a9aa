/**
 * A test worker that reaches a tool with an `outputSchema` through an SDK client, with the
 * validator the request's `validator` query parameter names: `cfworker` (no code generation),
 * `ajv` (the SDK's, which generates code) or `sdk-default` (the SDK's runtime default: cfworker's
 * in a browser/workerd build; a mounted server then gets no client-side validator). `/remote` lists a remote server's tools through `McpGateway`; `/mounted`
 * mounts an SDK `McpServer` in-process and calls its tool. Answers JSON: `{ names, missing }` or
 * `{ names, result }`, or `{ error }` with status 500.
 *
 * @module
 */

import { ToolRouter } from "../../mod.ts";
import { cfWorkerJsonSchemaValidator, McpGateway, mountMcpServer } from "../../src/core/mcp/mod.ts";
import { McpServer } from "@modelcontextprotocol/server";
// The SDK's ajv validator by name (toolroute's default is the SDK's runtime one, cfworker here).
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
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
    const named = url.searchParams.get("validator");
    const jsonSchemaValidator = named === "cfworker"
      ? cfWorkerJsonSchemaValidator()
      : named === "ajv"
      ? new AjvJsonSchemaValidator()
      : undefined;
    if (url.pathname === "/remote") {
      const gateway = new McpGateway({
        servers: { weather: { url: env.REMOTE_MCP_URL } },
        jsonSchemaValidator,
      });
      const router = new ToolRouter({ gateway });
      try {
        const toolSet = await router.expose({ mcpServers: ["weather"] });
        // The client validates the result against the tool's output schema at the call.
        const call = await toolSet.call("forecast", { city: "Oslo" });
        return Response.json({
          names: toolSet.names,
          missing: toolSet.missing,
          result: call.code ?? call.structuredContent,
          ...(call.code === undefined ? {} : { text: call.text }),
        });
      } finally {
        await router.close();
      }
    }
    const router = new ToolRouter();
    try {
      const server = new McpServer({ name: "local", version: "1.0.0" });
      forecastTools(server, { initHeaders: request.headers });
      router.addMcpService(await mountMcpServer("local", server, { jsonSchemaValidator }));
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
