/**
 * In the 2026-07-28 era the client holds a call's state between rounds (`requestState`): the
 * answers given so far and the questions just asked. A client that edits it, or echoes another
 * user's or another call's, must not make a tool take an answer nobody was asked for.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { modernToolCallRequest } from "../../../_helpers/modern_tool_call_request.ts";

const TOKENS = { "tok-alice": "alice", "tok-bob": "bob" };
const wipe = defineTool({
  name: "wipe",
  description: "Asks who is there, then whether to delete everything",
  input: z.object({ disk: z.string() }),
  run: async ({ disk }, ctx) => {
    const name = await ctx.elicit?.({
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, ctx.signal);
    const sure = await ctx.elicit?.({
      message: `Delete everything on ${disk}?`,
      requestedSchema: { type: "object", properties: { sure: { type: "boolean" } } },
    }, ctx.signal);
    return `name ${name?.content?.name}, wiped ${sure?.content?.sure === true}`;
  },
});
const router = new ToolRouter({ functions: [wipe] });
const handler = () =>
  mcpHttpHandler({
    tools: (request) => router.expose({ functions: ["wipe"], userId: request.userId }),
    tokens: TOKENS,
  });

interface Round {
  resultType?: string;
  inputRequests?: Record<string, { params: { message: string } }>;
  requestState?: string;
  content?: { text: string }[];
}

/** One raw 2026-07-28 `tools/call` round. */
async function round(
  served: McpHttpHandler,
  token: string,
  params: Record<string, unknown>,
): Promise<Round> {
  const response = await served(
    modernToolCallRequest("http://127.0.0.1:8787/mcp", {
      token,
      params: { name: "wipe", ...params },
      capabilities: { elicitation: { form: {} } },
    }),
  );
  return (await response.json()).result;
}

/** The questions a round asks: key to message. */
function questions(asked: Round): Record<string, string> {
  return Object.fromEntries(
    Object.entries(asked.inputRequests ?? {}).map((
      [key, request],
    ) => [key, request.params.message]),
  );
}

/** Where a state holds the questions and answers (a state that is not signed holds them at its top). */
// deno-lint-ignore no-explicit-any
function heldQuestions(state: any): any {
  return state.questions ?? state;
}

const NAME = { action: "accept", content: { name: "Ada" } };
const SURE = { action: "accept", content: { sure: true } };
const args = { disk: "prod" };

/** Answers "yes" to the deletion question on a state: as Alice, for `args`, unless told. */
function sayYes(
  served: McpHttpHandler,
  state: string | undefined,
  as: { token?: string; args?: Record<string, unknown> } = {},
): Promise<Round> {
  return round(served, as.token ?? "tok-alice", {
    arguments: as.args ?? args,
    inputResponses: { "input-1": SURE },
    requestState: state,
  });
}

/** Alice's first two rounds: asked her name, then (named) whether to delete. */
async function twoRounds(served: McpHttpHandler): Promise<{ first: Round; second: Round }> {
  const first = await round(served, "tok-alice", { arguments: args });
  const second = await round(served, "tok-alice", {
    arguments: args,
    inputResponses: { "input-0": NAME },
    requestState: first.requestState,
  });
  return { first, second };
}

Deno.test("answered round by round, the tool gets each answer of its own question", async () => {
  const served = handler();
  const first = await round(served, "tok-alice", { arguments: args });
  assertEquals(questions(first), { "input-0": "Your name?" });
  const second = await round(served, "tok-alice", {
    arguments: args,
    inputResponses: { "input-0": NAME },
    requestState: first.requestState,
  });
  assertEquals(questions(second), { "input-1": "Delete everything on prod?" });
  const done = await sayYes(served, second.requestState);
  assertEquals(done.content?.[0].text, "name Ada, wiped true");
  await served.close();
});

Deno.test("a state edited to carry an answer to a question not yet asked asks again", async () => {
  const served = handler();
  const { first, second } = await twoRounds(served);
  // The digest of the second question, as the server records it.
  const secondState = JSON.parse(second.requestState!);
  const digest = heldQuestions(secondState).asked["input-1"];
  assert(typeof digest === "string" && digest.length === 64);
  // The attack: the first round's state, with a "yes" to the deletion put in before it is asked.
  const forged = JSON.parse(first.requestState!);
  heldQuestions(forged).answers["input-1"] = { digest, answer: SURE };
  const attacked = await round(served, "tok-alice", {
    arguments: args,
    inputResponses: { "input-0": NAME },
    requestState: JSON.stringify(forged),
  });
  // The forged state counts for nothing: not even the name is taken; the tool asks from the start.
  assertEquals(attacked.resultType, "input_required");
  assertEquals(questions(attacked), { "input-0": "Your name?" });
  // A state with only its signature left off counts for nothing either.
  const unsigned = JSON.parse(second.requestState!);
  delete heldQuestions(unsigned).signature;
  const stripped = await sayYes(served, JSON.stringify(unsigned));
  assertEquals(questions(stripped), { "input-0": "Your name?" });
  await served.close();
});

Deno.test("another user's state, or one of other arguments, carries none of its answers", async () => {
  const served = handler();
  const { second } = await twoRounds(served);
  assertEquals(questions(second), { "input-1": "Delete everything on prod?" });
  // Bob echoes Alice's state, answering the question it holds: Alice's name is not his.
  const bob = await sayYes(served, second.requestState, { token: "tok-bob" });
  assertEquals(questions(bob), { "input-0": "Your name?" });
  // Alice's own state for another disk: the answers were given about "prod".
  const other = await sayYes(served, second.requestState, { args: { disk: "backup" } });
  assertEquals(questions(other), { "input-0": "Your name?" });
  // Her state for the same arguments still completes the call.
  const done = await sayYes(served, second.requestState);
  assertEquals(done.content?.[0].text, "name Ada, wiped true");
  await served.close();
});
