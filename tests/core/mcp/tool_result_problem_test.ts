import { assertEquals } from "@std/assert";
import { toolResultProblem } from "../../../src/core/mcp/tool_result_problem.ts";

Deno.test("toolResultProblem() accepts every kind of block the MCP schema has, with optional fields", () => {
  const valid = [
    {},
    { content: [] },
    { content: [{ type: "text", text: "a", annotations: { priority: 1 } }], isError: false },
    { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
    { content: [{ type: "audio", data: "", mimeType: "audio/wav" }] },
    { content: [{ type: "resource", resource: { uri: "file:///a", text: "t" } }] },
    { content: [{ type: "resource", resource: { uri: "file:///a", blob: "AAAA" } }] },
    { content: [{ type: "resource_link", uri: "file:///a", name: "a", mimeType: "text/plain" }] },
    { content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 }, isError: true },
  ];
  for (const result of valid) assertEquals(toolResultProblem(result), undefined);
});

Deno.test("toolResultProblem() names what is wrong with a result that is not a tool result", () => {
  const cases: [unknown, string][] = [
    [null, "it is not an object"],
    [[1], "it is not an object"],
    [{ content: "text" }, '"content" is not a list'],
    [{ content: [1] }, "content[0] is not an object"],
    [
      { content: [{ type: "text", text: "a" }, { type: "bogus" }] },
      'content[1] has an unknown type "bogus"',
    ],
    [{ content: [{ text: "a" }] }, "content[0] has an unknown type undefined"],
    [{ content: [{ type: "toString" }] }, 'content[0] has an unknown type "toString"'],
    [{ content: [{ type: "x".repeat(50) }] }, "content[0] has an unknown type (52 characters)"],
    [{ content: [{ type: "text" }] }, 'content[0] is a "text" block without a string "text"'],
    [
      { content: [{ type: "image", data: 5, mimeType: "image/png" }] },
      'content[0] is a "image" block without a string "data"',
    ],
    [
      { content: [{ type: "resource", resource: { uri: "a" } }] },
      'content[0] is a "resource" block whose resource has neither a string "text" nor "blob"',
    ],
    [
      { content: [{ type: "resource", resource: { text: "a" } }] },
      'content[0] is a "resource" block whose resource has no string "uri"',
    ],
    [
      { content: [{ type: "resource" }] },
      'content[0] is a "resource" block without a "resource" object',
    ],
    [
      { content: [{ type: "resource_link", uri: "a" }] },
      'content[0] is a "resource_link" block without a string "name"',
    ],
    [{ content: [], structuredContent: [1] }, '"structuredContent" is not an object'],
    [{ content: [], isError: "yes" }, '"isError" is not true or false'],
  ];
  for (const [result, problem] of cases) assertEquals(toolResultProblem(result), problem);
});
