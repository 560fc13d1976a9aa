import type { FunctionTool } from "./define_tool.ts";
import type { McpService } from "./define_mcp_service.ts";

/** The function tools and local MCP services a router holds, with unique names per source. */
export class ToolRegistry {
  #functions = new Map<string, FunctionTool>();
  #services = new Map<string, McpService>();
  #serviceTools = new Map<string, string>();
  #closers: (() => Promise<void>)[] = [];

  /** Adds a function tool; throws a `TypeError` naming both tools when the name is taken. */
  addFunction(tool: FunctionTool): void {
    if (tool === null || typeof tool !== "object" || tool.source !== "function") {
      throw new TypeError("Cannot register function tool: pass a tool made by defineTool()");
    }
    if (this.#functions.has(tool.name)) {
      throw new TypeError(
        `Cannot register function tool "${tool.name}": function tool "${tool.name}" is already registered; give one another name`,
      );
    }
    this.#functions.set(tool.name, tool);
  }

  /**
   * Adds a local MCP service; throws a `TypeError` when its name or an exposed tool name is taken.
   *
   * @param close Closes what the service holds, when the router closes.
   */
  addService(service: McpService, close?: () => Promise<void>): void {
    if (service === null || typeof service !== "object" || !Array.isArray(service.tools)) {
      throw new TypeError("Cannot register MCP service: pass a service made by defineMcpService()");
    }
    const { name } = service;
    if (typeof name !== "string" || name === "") {
      throw new TypeError("Cannot register MCP service: the name must be a non-empty string");
    }
    if (this.#services.has(name)) {
      throw new TypeError(
        `Cannot register MCP service "${name}": a service named "${name}" is already registered`,
      );
    }
    const seen = new Map<string, string>();
    for (const tool of service.tools) {
      const clash = this.#serviceTools.get(tool.name) ?? seen.get(tool.name);
      if (clash !== undefined) {
        throw new TypeError(
          `Cannot register MCP service "${service.name}": tools "${clash}" and "${tool.origin}" are both exposed as "${tool.name}"; rename one`,
        );
      }
      seen.set(tool.name, tool.origin);
    }
    for (const [name, origin] of seen) this.#serviceTools.set(name, origin);
    this.#services.set(service.name, service);
    if (close) this.#closers.push(close);
  }

  getFunction(name: string): FunctionTool | undefined {
    return this.#functions.get(name);
  }

  getService(name: string): McpService | undefined {
    return this.#services.get(name);
  }

  /** @returns Every function tool name, in registration order. */
  functionNames(): string[] {
    return [...this.#functions.keys()];
  }

  /** @returns Every service name, in registration order. */
  serviceNames(): string[] {
    return [...this.#services.keys()];
  }

  /** Closes every mounted server. */
  async close(): Promise<void> {
    const closers = this.#closers.splice(0);
    await Promise.allSettled(closers.map((close) => close()));
  }
}
