/**
 * What `examples/edge_worker.ts` uses of toolroute, as an entry: bundled with the npm packages
 * left out, it measures toolroute's own code in the edge bundle.
 *
 * @module
 */

export {
  cfWorkerJsonSchemaValidator,
  defineMcpService,
  defineTool,
  McpGateway,
  mcpHttpHandler,
  ToolRouter,
} from "../../mod.ts";
