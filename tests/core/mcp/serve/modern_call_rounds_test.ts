/**
 * In the 2026-07-28 era a policy's ask and a tool's question reach the client as an
 * `input_required` result, and the client's retry completes the call; the approval stays bound
 * to the arguments shown, to the user, and to one use.
 *
 * @module
 */
import { assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";
import { EVERYTHING, functionTools, policyRouter, ran } from "../../policy/_policy_fixture.ts";
import { modernToolCallRequest } from "../../../_helpers/modern_tool_call_request.ts";

const TOKENS = { "tok-alice": "alice", "tok-bob": "bob" };
const signIn = defineTool({
  name: "sign_in",
  description: "Asks the person to open a sign-in link, then a question",
  input: z.object({}),
  run: async (_args, ctx) => {
    const link = await ctx.elicit?.({
      message: "Sign in to the example server",
      requestedSchema: {},
      url: `https://auth.example/start?n=${crypto.randomUUID()}`,
    }, ctx.signal);
    const name = await ctx.elicit?.({
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, ctx.signal);
    return `link ${link?.action}, name ${name?.content?.name}`;
  },
});
const router = policyRouter({
  policy: { ask: ["deploy"] },
  functions: [...functionTools(), signIn],
});
const tools = (request: { userId?: string }) =>
  router.expose({
    ...EVERYTHING,
    functions: [...EVERYTHING.functions, "sign_in"],
    userId: request.userId,
  });

/** A 2.x client pinned to 2026-07-28; records the results of every tools/call round. */
async function modernClient(
  handler: McpHttpHandler,
  options: {
    token: string;
    elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
    answer?: (params: Record<string, unknown>) => unknown;
  },
) {
  const rounds: Record<string, unknown>[] = [];
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
    fetch: async (url: string | URL, init?: RequestInit) => {
      const response = await handler(new Request(url, init));
      const body = await response.clone().json().catch(() => undefined);
      if (body?.result !== undefined) rounds.push(body.result);
      return response;
    },
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: "modern", version: "1.0.0" },
    {
      capabilities: options.elicitation === undefined ? {} : { elicitation: options.elicitation },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  if (options.answer !== undefined) {
    const answer = options.answer;
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params);
      return answer(request.params) as never;
    });
  }
  await client.connect(transport);
  return { client, asked, rounds };
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

/** Sends one raw 2026-07-28 tools/call and returns the JSON-RPC answer. */
async function rawCall(
  handler: McpHttpHandler,
  token: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await handler(
    modernToolCallRequest("http://127.0.0.1:8787/mcp", {
      token,
      params: params as { name: string },
      capabilities: { elicitation: { form: {} } },
    }),
  );
  return await response.json();
}

Deno.test("a policy's ask reaches a 2026-07-28 client as input_required and its approval runs the call", async () => {
  const handler = mcpHttpHandler({ tools, tokens: TOKENS });
  const { client, asked, rounds } = await modernClient(handler, {
    token: "tok-alice",
    elicitation: { form: {} },
    answer: () => ({ action: "accept", content: { approve: true } }),
  });
  ran.length = 0;
  const result = await client.callTool({ name: "deploy", arguments: { env: "prod" } });
  assertEquals(text(result), "deploy ran");
  assertEquals(ran, [{ tool: "deploy", args: { env: "prod" } }]);
  // The question went out as an input_required result, not a server-to-client request.
  const calls = rounds.filter((round) => "resultType" in round && !("supportedVersions" in round));
  assertEquals(calls.map((round) => round.resultType), ["input_required", "complete"]);
  assertEquals(asked.length, 1);
  assertMatch(String(asked[0].message), /deploy.*\nenv: prod\n/s);
  await client.close();
  await handler.close();
});

Deno.test("a 2026-07-28 client that declines gets permission_denied and nothing runs", async () => {
  const handler = mcpHttpHandler({ tools, tokens: TOKENS });
  const { client } = await modernClient(handler, {
    token: "tok-alice",
    elicitation: { form: {} },
    answer: () => ({ action: "decline", content: { reason: "not today" } }),
  });
  ran.length = 0;
  const result = await client.callTool({ name: "deploy", arguments: { env: "prod" } });
  assertEquals(result.isError, true);
  assertMatch(text(result), /not today/);
  assertEquals(ran, []);
  await client.close();
  await handler.close();
});

Deno.test("a 2026-07-28 client without elicitation is told it cannot be asked; nothing runs", async () => {
  const handler = mcpHttpHandler({ tools, tokens: TOKENS });
  const { client } = await modernClient(handler, { token: "tok-alice" });
  ran.length = 0;
  const result = await client.callTool({ name: "deploy", arguments: { env: "prod" } });
  assertEquals(result.isError, true);
  assertMatch(text(result), /requires approval .* and this client cannot be asked/);
  assertEquals(ran, []);
  await client.close();
  await handler.close();
});

Deno.test("a hostile 2026-07-28 client cannot reuse, redirect or hand over an approval", async () => {
  const handler = mcpHttpHandler({ tools, tokens: TOKENS });
  ran.length = 0;
  const first = await rawCall(handler, "tok-alice", { name: "deploy", arguments: { env: "dev" } });
  const asked = first.result as { resultType: string; requestState: string };
  assertEquals(asked.resultType, "input_required");
  assertEquals(ran, []);
  const yes = { approval: { action: "accept", content: { approve: true } } };
  // Approved for env=dev, retried with env=prod: the approval does not fit, it is asked anew.
  const redirected = await rawCall(handler, "tok-alice", {
    name: "deploy",
    arguments: { env: "prod" },
    inputResponses: yes,
    requestState: asked.requestState,
  });
  assertEquals((redirected.result as { resultType: string }).resultType, "input_required");
  assertEquals(ran, []);
  // Bob echoes alice's state with an approval: the approval is alice's, nothing runs.
  const handedOver = await rawCall(handler, "tok-bob", {
    name: "deploy",
    arguments: { env: "dev" },
    inputResponses: yes,
    requestState: asked.requestState,
  });
  assertMatch(text(handedOver.result), /issued for another user/);
  assertEquals(ran, []);
  // Alice's own retry runs it once...
  const approved = await rawCall(handler, "tok-alice", {
    name: "deploy",
    arguments: { env: "dev" },
    inputResponses: yes,
    requestState: asked.requestState,
  });
  assertEquals(text(approved.result), "deploy ran");
  assertEquals(ran.length, 1);
  // ...and a replay of the same answer runs nothing.
  const replayed = await rawCall(handler, "tok-alice", {
    name: "deploy",
    arguments: { env: "dev" },
    inputResponses: yes,
    requestState: asked.requestState,
  });
  assertMatch(text(replayed.result), /already used/);
  assertEquals(ran.length, 1);
  await handler.close();
});

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`a tool's URL-mode and form questions reach the ${era} client and its answers`, async () => {
    const handler = mcpHttpHandler({ tools, tokens: TOKENS });
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
      fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
      requestInit: { headers: { authorization: "Bearer tok-alice" } },
    });
    const client = new Client(
      { name: era, version: "1.0.0" },
      {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" },
      },
    );
    const asked: Record<string, unknown>[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params);
      return (request.params.mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: { name: "Ada" } }) as never;
    });
    await client.connect(transport);
    const result = await client.callTool({ name: "sign_in", arguments: {} });
    assertEquals(text(result), "link accept, name Ada");
    const link = asked.find((params) => params.mode === "url");
    if (link === undefined) throw new Error(`no URL question: ${JSON.stringify(asked)}`);
    assertMatch(String(link.url), /^https:\/\/auth\.example\/start\?n=/);
    assertEquals(client.getProtocolEra(), era);
    await client.close();
    await handler.close();
  });
}
