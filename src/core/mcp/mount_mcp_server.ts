import { toApiFunctionName } from "../api_function_name.ts";
import type { McpService } from "../define_mcp_service.ts";
import type { JsonObjectSchema, RoutedTool, ToolContext } from "../tool_source.ts";
import { callMcpToolOutput } from "./mcp_call.ts";
import { upstreamInputSchema } from "../strict_schema.ts";
import { isTooDeepTool, listAllTools } from "./list_all_tools.ts";
import type { McpJsonSchemaValidator } from "./mcp_transport.ts";
import {
  CallingClient,
  type Client,
  type ClientOptions,
  InMemoryTransport,
  type McpTool,
} from "./mcp_sdk.ts";

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
   * Validates tools' structured output on the client's side too; default: none there (an SDK
   * `McpServer` validates its own output). Edge builds pass `cfWorkerJsonSchemaValidator()`.
   */
  jsonSchemaValidator?: McpJsonSchemaValidator;
}

/** A local MCP service backed by an SDK `McpServer` connected in process. */
export interface MountedMcpService extends McpService {
  /** Disconnects the client from the server and closes the server. */
  close(): Promise<void>;
}

/**
 * Connects an SDK `McpServer` in process (the SDK's client over its in-memory transport pair:
 * the one client toolroute speaks MCP with) and returns its tools as a local MCP service named
 * `id`, for `router.addMcpService`. The tool list follows `notifications/tools/list_changed`.
 * It lives in the `./mcp` entry, so a router that never mounts a server bundles no SDK client.
 *
 * @example Mount a server and call its tool
 * ```ts
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { mountMcpServer } from "@toolroute/toolroute/mcp";
 * import { McpServer } from "@modelcontextprotocol/server";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const server = new McpServer({ name: "clock", version: "1.0.0" });
 * server.registerTool("now", { inputSchema: z.object({}) }, () => ({
 *   content: [{ type: "text", text: "noon" }],
 * }));
 * await using router = new ToolRouter();
 * router.addMcpService(await mountMcpServer("clock", server));
 * const tools = await router.expose({ mcpServices: ["clock"] });
 * assertEquals(await tools.invoke("clock_now", {}), "noon");
 * ```
 *
 * @param id The service name; tools are exposed as `toApiFunctionName(id, tool.name)`.
 * @param server The SDK server, not yet connected.
 * @param options The validator of structured tool output.
 * @returns The mounted service; `router.close()` closes it, or call its `close()`.
 */
export async function mountMcpServer(
  id: string,
  server: MountableMcpServer,
  options: MountOptions = {},
): Promise<MountedMcpService> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const validator = options.jsonSchemaValidator;
  const client = new CallingClient({ name: "toolroute", version: "0.1.0" }, {
    capabilities: {},
    // Absent: the SDK's default validator.
    jsonSchemaValidator: validator as ClientOptions["jsonSchemaValidator"],
  });
  await server.connect(serverSide);
  try {
    await client.connect(clientSide);
  } catch (error) {
    await server.close().catch(() => {});
    throw error;
  }
  // A server that registered no tool yet does not offer `tools/list` at all.
  const list = async () =>
    client.getServerCapabilities()?.tools === undefined
      ? []
      : (await listAllTools(client)).filter((tool) => !isTooDeepTool(tool))
        .map((tool) => toRoutedTool(id, client, tool, validator));
  let tools = await list();
  client.setNotificationHandler("notifications/tools/list_changed", async () => {
    tools = await list();
  });
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

function toRoutedTool(
  id: string,
  client: Client,
  tool: McpTool,
  validator: McpJsonSchemaValidator | undefined,
): RoutedTool {
  // With a validator, the client checks structured output against the listed definition.
  const definition = validator !== undefined && tool.outputSchema !== undefined ? tool : undefined;
  return Object.freeze({
    name: toApiFunctionName(id, tool.name),
    description: tool.description ?? "",
    inputSchema: upstreamInputSchema(tool.inputSchema),
    outputSchema: tool.outputSchema as JsonObjectSchema | undefined,
    annotations: tool.annotations as Record<string, unknown> | undefined,
    source: "local_mcp" as const,
    origin: `${id}/${tool.name}`,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      callMcpToolOutput(
        client,
        { toolName: tool.name, args, context },
        definition === undefined ? {} : { toolDefinition: definition },
      ),
  });
}
