/**
 * A test worker that lists a remote MCP server's tools through `McpGateway` with the validator
 * its `VALIDATOR` binding names: `"cfworker"` (no code generation) or `"sdk-default"` (ajv).
 * Answers `{ names, missing }` of the exposed tool set as JSON.
 *
 * @module
 */

import { cfWorkerJsonSchemaValidator, McpGateway, ToolRouter } from "../../mod.ts";

/** The worker's bindings. */
export interface ValidatorWorkerEnv {
  /** The remote server's endpoint. */
  REMOTE_MCP_URL: string;
  /** Which JSON Schema validator the gateway's clients get. */
  VALIDATOR: "cfworker" | "sdk-default";
}

export default {
  /**
   * Lists the remote tools with a fresh gateway.
   *
   * @param _request The HTTP request (ignored).
   * @param env The bindings.
   * @returns `{ names, missing }` as JSON.
   */
  async fetch(_request: Request, env: ValidatorWorkerEnv): Promise<Response> {
    const gateway = new McpGateway({
      servers: { weather: { url: env.REMOTE_MCP_URL } },
      jsonSchemaValidator: env.VALIDATOR === "cfworker" ? cfWorkerJsonSchemaValidator() : undefined,
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
