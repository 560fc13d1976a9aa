/**
 * A test worker that lists a remote MCP server's tools through `McpGateway` with the validator
 * the request's `validator` query parameter names: `cfworker` (no code generation) or
 * `sdk-default` (ajv). Answers `{ names, missing }` of the exposed tool set as JSON.
 *
 * @module
 */

import { cfWorkerJsonSchemaValidator, McpGateway, ToolRouter } from "../../mod.ts";

/** The worker's bindings. */
export interface ValidatorWorkerEnv {
  /** The remote server's endpoint. */
  REMOTE_MCP_URL: string;
}

export default {
  /**
   * Lists the remote tools with a fresh gateway.
   *
   * @param request The HTTP request; `?validator=cfworker` or `?validator=sdk-default`.
   * @param env The bindings.
   * @returns `{ names, missing }` as JSON.
   */
  async fetch(request: Request, env: ValidatorWorkerEnv): Promise<Response> {
    const validator = new URL(request.url).searchParams.get("validator");
    const gateway = new McpGateway({
      servers: { weather: { url: env.REMOTE_MCP_URL } },
      jsonSchemaValidator: validator === "cfworker" ? cfWorkerJsonSchemaValidator() : undefined,
    });
    const router = new ToolRouter({ gateway });
    try {
      const toolSet = await router.expose({ mcpServers: ["weather"] });
      return Response.json({ names: toolSet.names, missing: toolSet.missing });
    } finally {
      await router.close();
    }
  },
};
