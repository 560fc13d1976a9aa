import { toFileUrl } from "@std/path";
import type { FunctionTool } from "../../core/define_tool.ts";
import type { McpService } from "../../core/define_mcp_service.ts";
import { UsageError } from "./usage_error.ts";
// Loaded up front so that a module importing the package from this same copy needs no read
// permission for it (Deno checks permissions only for modules it has not loaded yet).
import "../../../mod.ts";

/** The tools found in the config's modules. */
export interface LoadedModules {
  /** Function tools (made by `defineTool`). */
  functions: FunctionTool[];
  /** Local MCP services (made by `defineMcpService`). */
  mcpServices: McpService[];
}

/**
 * Imports each module and collects the function tools and local MCP services it exports (also
 * inside exported arrays). Throws a {@linkcode UsageError} for a module that fails to load or
 * exports neither.
 *
 * Requires `allow-read` for the modules.
 *
 * @tags allow-read
 * @param paths Absolute module paths.
 */
export async function loadModules(paths: readonly string[]): Promise<LoadedModules> {
  const functions: FunctionTool[] = [];
  const mcpServices: McpService[] = [];
  for (const path of paths) {
    let module: Record<string, unknown>;
    try {
      module = await import(toFileUrl(path).href);
    } catch (error) {
      throw new UsageError(`Cannot load module "${path}": ${(error as Error).message}`);
    }
    const before = functions.length + mcpServices.length;
    for (const value of Object.values(module).flat()) {
      if (isFunctionTool(value)) functions.push(value);
      else if (isMcpService(value)) mcpServices.push(value);
    }
    if (functions.length + mcpServices.length === before) {
      throw new UsageError(
        `Module "${path}" exports no tools; export values made by defineTool() or defineMcpService()`,
      );
    }
  }
  return { functions, mcpServices };
}

function isFunctionTool(value: unknown): value is FunctionTool {
  const tool = value as FunctionTool;
  return typeof value === "object" && value !== null && tool.source === "function" &&
    typeof tool.name === "string" && typeof tool.execute === "function";
}

function isMcpService(value: unknown): value is McpService {
  const service = value as McpService;
  return typeof value === "object" && value !== null && typeof service.name === "string" &&
    Array.isArray(service.tools) && service.tools.every((tool) => tool.source === "local_mcp");
}
