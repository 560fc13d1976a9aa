// The OpenAI Responses rendering: flat functions, and for a deferred set OpenAI's tool search
// with one namespace per MCP server or service, covering exactly what the request may use.
import { assert, assertEquals, assertFalse } from "@std/assert";
import { z } from "zod";
import { defineMcpService, defineTool, ToolRouter } from "../../mod.ts";
import type { OpenAIResponsesFunction, OpenAIResponsesTool } from "../../src/core/formats.ts";

const service = (name: string, tools: string[]) =>
  defineMcpService({
    name,
    tools: Object.fromEntries(tools.map((tool) => [tool, {
      description: `${tool} in ${name}`,
      input: z.object({ id: z.string() }),
      run: ({ id }: { id: string }) => `${name}.${tool}(${id})`,
    }])),
  });

const now = defineTool({
  name: "now",
  description: "The time",
  input: z.object({}),
  run: () => "noon",
});

function router() {
  return new ToolRouter({
    mcpServices: [
      service("linear", ["create_issue", "list_issues"]),
      service("github", ["create_issue", "delete_repo"]),
    ],
    functions: [now],
    policy: { deny: ["github_delete_repo"] },
  });
}

function functionsOf(tools: OpenAIResponsesTool[]): OpenAIResponsesFunction[] {
  return tools.flatMap((tool) =>
    tool.type === "namespace" ? tool.tools : tool.type === "function" ? [tool] : []
  );
}

Deno.test("toOpenAIResponses() gives flat Responses functions in the set's order", async () => {
  const tools = await router().expose({ mcpServices: ["linear"], functions: ["now"] });
  const rendered = tools.toOpenAIResponses();
  assertEquals(rendered.map((tool) => tool.type === "function" && tool.name), tools.names);
  assertEquals(rendered[0], {
    type: "function",
    name: "linear_create_issue",
    description: "create_issue in linear",
    parameters: tools.tools[0].function.parameters,
    strict: tools.tools[0].function.strict === true,
  });
  // An eager set has nothing to search: the option changes nothing.
  assertEquals(tools.toOpenAIResponses({ native: true }), rendered);
});

Deno.test("toOpenAIResponses({ native: true }) defers every unlisted tool, one namespace per server", async () => {
  const tools = await router().expose({
    mcpServices: ["linear", "github"],
    functions: ["now"],
    defer: { keep: ["linear_list_issues"] },
  });
  const names = tools.names;
  const rendered = tools.toOpenAIResponses({ native: true });
  assertEquals(rendered[0], { type: "tool_search" });
  assertEquals(rendered[1].type === "function" && rendered[1].name, "linear_list_issues");
  assertFalse("defer_loading" in rendered[1]);
  const namespaces = rendered.filter((tool) => tool.type === "namespace");
  assertEquals(namespaces.map((ns) => [ns.name, ns.tools.map((tool) => tool.name)]), [
    ["github", ["github_create_issue"]],
    ["linear", ["linear_create_issue"]],
  ]);
  assert(namespaces.every((ns) => ns.tools.every((tool) => tool.defer_loading === true)));
  assert(namespaces[1].description.includes("linear_create_issue"));
  const loose = rendered.slice(2).filter((tool) => tool.type === "function");
  assertEquals(loose.map((tool) => [tool.name, tool.defer_loading]), [["now", true]]);
  // Exactly what the request may use: the denied tool is nowhere, search_tools neither.
  assertEquals(
    functionsOf(rendered).map((tool) => tool.name).sort(),
    ["github_create_issue", "linear_create_issue", "linear_list_issues", "now"],
  );
  // What OpenAI's search loads is callable under the name the call carries; the list stays.
  assertEquals(await tools.invoke("github_create_issue", { id: "7" }), "github.create_issue(7)");
  assertEquals((await tools.call("github_delete_repo", { id: "x" })).code, "unknown_tool");
  assertEquals(tools.names, names);
});
