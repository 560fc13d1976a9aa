/**
 * What a 2026-07-28 client puts in `inputResponses` and `requestState` is its own: an answer of
 * another shape than MCP's (`content` maps a field to a string, number, boolean or strings), or a
 * state nested past the stack, must be refused as an answer or a state, never reach the tool, and
 * never fail the request with an engine error.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { modernToolCallRequest } from "../../../_helpers/modern_tool_call_request.ts";
import { EVERYTHING, policyRouter, ran } from "../../policy/_policy_fixture.ts";

/** Every answer the tool was given, as it got it. */
const given: unknown[] = [];
const greet = defineTool({
  name: "greet",
  description: "Asks the person's name, then greets them",
  input: z.object({}),
  run: async (_args, ctx) => {
    const name = await ctx.elicit?.({
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, ctx.signal);
    given.push(name);
    return `hello ${name?.content?.name}`;
  },
});

// deno-lint-ignore no-explicit-any
type Reply = { result?: any; error?: { code: number; message: string } };

/** One raw 2026-07-28 `tools/call` round as Alice. */
async function round(
  served: McpHttpHandler,
  params: { name: string } & Record<string, unknown>,
): Promise<Reply> {
  const response = await served(
    modernToolCallRequest("http://127.0.0.1:8787/mcp", {
      token: "tok-alice",
      params,
      capabilities: { elicitation: { form: {} } },
    }),
  );
  return await response.json();
}

/** An array nested past any stack's depth (a few hundred kilobytes of JSON). */
function nested(): unknown {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  return deep;
}

Deno.test("an answer whose content is not MCP's shape is no answer: the tool asks again", async () => {
  const router = new ToolRouter({ functions: [greet] });
  const served = mcpHttpHandler({
    tools: (request) => router.expose({ functions: ["greet"], userId: request.userId }),
    tokens: { "tok-alice": "alice" },
  });
  const first = await round(served, { name: "greet", arguments: {} });
  assertEquals(Object.keys(first.result.inputRequests), ["input-0"]);
  const shapes = [
    [{ name: "Ada" }],
    { name: { first: "Ada" } },
    { name: null },
    { name: [1, 2] },
    { name: nested() },
  ];
  given.length = 0;
  for (const content of shapes) {
    const attacked = await round(served, {
      name: "greet",
      arguments: {},
      inputResponses: { "input-0": { action: "accept", content } },
      requestState: first.result.requestState,
    });
    // The attack ran and was refused as a result (no JSON-RPC error): asked again.
    assertEquals(attacked.error, undefined, JSON.stringify(attacked.error));
    assertEquals(attacked.result.resultType, "input_required");
    assertEquals(Object.keys(attacked.result.inputRequests), ["input-0"]);
  }
  assertEquals(given, []);
  // An answer of MCP's shape is taken.
  const done = await round(served, {
    name: "greet",
    arguments: {},
    inputResponses: { "input-0": { action: "accept", content: { name: "Ada" } } },
    requestState: first.result.requestState,
  });
  assertEquals(done.result.content[0].text, "hello Ada");
  await served.close();
});

Deno.test("an approval nested past the stack in requestState is refused as a result, and nothing runs", async () => {
  const router = policyRouter({ policy: { ask: ["deploy"] } });
  const served = mcpHttpHandler({
    tools: (request) => router.expose({ ...EVERYTHING, userId: request.userId }),
    tokens: { "tok-alice": "alice" },
  });
  const args = { env: "prod" };
  const first = await round(served, { name: "deploy", arguments: args });
  const state = JSON.parse(first.result.requestState);
  assert(state.approval.signature !== undefined);
  state.approval.deep = nested();
  ran.length = 0;
  for (const action of ["accept", "decline"]) {
    const attacked = await round(served, {
      name: "deploy",
      arguments: args,
      inputResponses: { approval: { action, content: { approve: action === "accept" } } },
      requestState: JSON.stringify(state),
    });
    assertEquals(attacked.error, undefined, JSON.stringify(attacked.error));
    assertEquals(attacked.result.isError, true);
    assertMatch(attacked.result.content[0].text, /approval/i);
  }
  assertEquals(ran, []);
  await served.close();
});
