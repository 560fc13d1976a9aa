import { toApiFunctionName } from "../api_function_name.ts";
import type { McpService } from "../define_mcp_service.ts";
import type { JsonObjectSchema, RoutedTool, ToolContext } from "../tool_source.ts";
import { callMcpToolOutput } from "./mcp_call.ts";
import { upstreamInputSchema } from "../strict_schema.ts";
import { listAllTools } from "./list_all_tools.ts";
import type { McpJsonSchemaValidator } from "./mcp_transport.ts";
import type { McpTool } from "./mcp_sdk_types.ts";
import { InProcessMcpClient } from "./in_process_client.ts";

/**
 * An SDK `McpServer` (or low-level `Server`) that is not connected yet, described structurally
 * so the public API names no SDK type.
 */
export interface MountableMcpServer {
  /** Connects the server to a transport. */
  connect(transport: unknown): Promise<void>;
  /** Closes the server. */
  close(): Promise<void>;
}

/** Options of {@linkcode mountMcpServer}. */
export interface MountOptions {
  /**
   * Validates tools' structured output; default: none on the client's side (an SDK `McpServer`
   * validates its own output).
   */
  jsonSchemaValidator?: McpJsonSchemaValidator;
}

/** A local MCP service backed by an SDK `McpServer` connected in-process. */
export interface MountedMcpService extends McpService {
  /** Disconnects the client from the server. */
  close(): Promise<void>;
}

/**
 * Connects an SDK `McpServer` in-process (over {@linkcode InProcessMcpClient}, which keeps the
 * SDK's client out of bundles that never mount a server) and exposes its tools
 * as a local MCP service named `id`. The tool list follows `notifications/tools/list_changed`.
 *
 * @param id The service name; tools are exposed as `toApiFunctionName(id, tool.name)`.
 * @param server The SDK server, not yet connected.
 * @param options The validator of structured tool output.
 * @returns The mounted service.
 */
export async function mountMcpServer(
  id: string,
  server: MountableMcpServer,
  options: MountOptions = {},
): Promise<MountedMcpService> {
  const client = await InProcessMcpClient.connect(server, options.jsonSchemaValidator);
  let tools = (await listAllTools(client)).map((tool) => toRoutedTool(id, client, tool));
  client.onToolsChanged = async () => {
    tools = (await listAllTools(client)).map((tool) => toRoutedTool(id, client, tool));
  };
  return {
    name: id,
    get tools() {
      return tools;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

function toRoutedTool(id: string, client: InProcessMcpClient, tool: McpTool): RoutedTool {
  return Object.freeze({
    name: toApiFunctionName(id, tool.name),
    description: tool.description ?? "",
    inputSchema: upstreamInputSchema(tool.inputSchema),
    outputSchema: tool.outputSchema as JsonObjectSchema | undefined,
    annotations: tool.annotations as Record<string, unknown> | undefined,
    source: "local_mcp" as const,
    origin: `${id}/${tool.name}`,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      callMcpToolOutput(client, tool.name, args, context),
  });
}
