import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import { ToolRegistry } from "../../src/core/tool_registry.ts";
import { defineMcpService, defineTool } from "../../mod.ts";

const tool = defineTool({ name: "t", description: "d", input: z.object({}), run: () => "" });
const service = defineMcpService({
  name: "s",
  tools: { x: { description: "d", input: z.object({}), run: () => "" } },
});

Deno.test("ToolRegistry keeps function tools and services by name, in registration order", () => {
  const registry = new ToolRegistry();
  registry.addFunction(tool);
  registry.addService(service);
  assertEquals([registry.functionNames(), registry.serviceNames()], [["t"], ["s"]]);
  assertEquals([registry.getFunction("t"), registry.getService("s")], [tool, service]);
  assertEquals([registry.getFunction("s"), registry.getService("t")], [undefined, undefined]);
});

Deno.test("ToolRegistry refuses duplicate names within a source but not across sources", () => {
  const registry = new ToolRegistry();
  registry.addFunction(tool);
  assertThrows(() => registry.addFunction(tool), TypeError, "already registered");
  registry.addService(defineMcpService({ name: "t", tools: {} }));
  assertThrows(() => registry.addService({ name: "t", tools: [] }), TypeError, "already");
  assertThrows(() => registry.addService({ name: "", tools: [] }), TypeError, "non-empty");
});

Deno.test("ToolRegistry.close() runs each closer once", async () => {
  const registry = new ToolRegistry();
  let closed = 0;
  registry.addService(service, () => Promise.resolve(void closed++));
  await registry.close();
  await registry.close();
  assertEquals(closed, 1);
});
