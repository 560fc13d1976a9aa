/**
 * Structure-aware fuzzing of `mcpHttpHandler` (what `toolroute serve --http` answers with), both
 * MCP eras, two bearer-token users, a policy with an `ask` rule and a result budget. Valid
 * requests are mutated (`_handler_fuzz_cases.ts`) and sent three at a time, Alice's beside Bob's.
 * For every answer: the handler did not throw, no 500 and no stack, an answer within the call's
 * deadline, every message a JSON-RPC message of the right shape, a tool's failure a result with
 * `isError` and text, and nothing of Alice's in Bob's answer that his request did not carry.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { FuzzRandom } from "../../../_helpers/fuzz_random.ts";
import { INITIALIZE_MESSAGE } from "../../../_helpers/initialize_request.ts";
import {
  ALICE_MARKS,
  ENDPOINT,
  type FuzzCase,
  type Kept,
  makeCase,
  TOKEN_OF,
  TOKENS,
  type User,
} from "./_handler_fuzz_cases.ts";
import { within } from "../../../_helpers/within.ts";

const SEED = 0x5eed40;
const CASES = 900;
/** Past the call's deadline (1.5 s) with room for a loaded machine: longer is a hang. */
const HANG_MS = 15_000;

const ran: Record<string, number> = {};
const count = (name: string) => void (ran[name] = (ran[name] ?? 0) + 1);
const tools = [
  defineTool({
    name: "echo",
    description: "Echoes text",
    input: z.object({ text: z.string() }),
    run: ({ text }) => (count("echo"), text),
  }),
  defineTool({
    name: "whoami",
    description: "The caller",
    input: z.object({}),
    run: (_args, ctx) => (count("whoami"), `user ${ctx.userId}`),
  }),
  defineTool({
    name: "big",
    description: "A long result, cut by the budget",
    input: z.object({ n: z.number().int().max(100_000) }),
    run: ({ n }) => (count("big"), "b".repeat(n)),
  }),
  defineTool({
    name: "boom",
    description: "Always fails",
    input: z.object({}),
    run: () => {
      count("boom");
      throw new Error("boom");
    },
  }),
  defineTool({
    name: "deploy",
    description: "Asked first by the policy",
    input: z.object({ env: z.string() }),
    run: ({ env }) => (count("deploy"), `deployed ${env}`),
  }),
  defineTool({
    name: "asker",
    description: "Asks a question",
    input: z.object({ about: z.string() }),
    run: async ({ about }, ctx) => {
      count("asker");
      const answer = await ctx.elicit?.({
        message: `Name for ${about}?`,
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      }, ctx.signal);
      return `named ${JSON.stringify(answer?.content ?? null)}`;
    },
  }),
  defineTool({
    name: "alice_vault",
    description: "Only Alice's",
    input: z.object({}),
    run: () => (count("alice_vault"), "ALICE-VAULT"),
  }),
];
const router = new ToolRouter({
  functions: tools,
  policy: { ask: ["deploy"] },
  maxResultChars: 2000,
});
const EVERY = tools.map((tool) => tool.name);

// deno-lint-ignore no-explicit-any
type Json = any;

function post(user: User, message: unknown, headers: Record<string, string> = {}): Request {
  return new Request(ENDPOINT, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN_OF[user]}`,
      ...headers,
    },
    body: JSON.stringify(message),
  });
}

/** Opens 2025 sessions for a user: one declaring elicitation, one not. */
async function openSessions(served: McpHttpHandler, user: User): Promise<string[]> {
  const ids: string[] = [];
  for (const capabilities of [{}, { elicitation: { form: {} } }]) {
    const message = {
      ...INITIALIZE_MESSAGE,
      params: { ...INITIALIZE_MESSAGE.params, capabilities },
    };
    const response = await served(post(user, message));
    const id = response.headers.get("mcp-session-id");
    await response.body?.cancel();
    if (id === null) throw new Error("initialize opened no session");
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    const done = await served(
      post(user, { jsonrpc: "2.0", method: "notifications/initialized" }, headers),
    );
    await done.body?.cancel();
    ids.push(id);
  }
  return ids;
}

/** A JSON-RPC message's shape fault, or `undefined` when it is one. */
function shapeFault(message: Json): string | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    return "not an object";
  }
  if (message.jsonrpc !== "2.0") return "jsonrpc is not 2.0";
  if ("error" in message) {
    const { code, message: text } = message.error ?? {};
    if (!Number.isInteger(code) || typeof text !== "string") {
      return "error without integer code and message";
    }
    // The SDK 2.4 answers a spec method's params that fail its schema (other than tools/call's)
    // with -32603 and the schema's issues, for every server it runs: counted, not a finding.
    if (code === -32603 && /^\[\s*\{\s*"(code|expected)"/.test(text)) return undefined;
    if (code === -32603) return `internal error: ${text}`;
    return undefined;
  }
  if ("result" in message || typeof message.method === "string") return undefined;
  return "neither result, error nor method";
}

/** Reads an SSE body's messages until a response arrives; server requests are answered. */
async function sseMessages(
  response: Response,
  answer: (request: Json) => void,
  stream: boolean,
): Promise<{ messages: Json[]; text: string; eventIds: string[] } | "late"> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: Json[] = [];
  const eventIds: string[] = [];
  let text = "";
  let buffer = "";
  const deadline = Date.now() + (stream ? 300 : HANG_MS);
  try {
    while (true) {
      const chunk = await within(reader.read(), Math.max(1, deadline - Date.now()));
      if (chunk === "late") return stream ? { messages, text, eventIds } : "late";
      if (chunk.done) return { messages, text, eventIds };
      text += chunk.value;
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart()).join("\n");
        const id = event.split("\n").find((line) => line.startsWith("id:"));
        if (id !== undefined) eventIds.push(id.slice(3).trim());
        if (data === "") continue;
        const message = JSON.parse(data);
        messages.push(message);
        if (typeof message.method === "string" && "id" in message) answer(message);
        else if ("result" in message || "error" in message) return { messages, text, eventIds };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

Deno.test("fuzzing mcpHttpHandler in both eras with two users: no throw, no 500, no hang, JSON-RPC shapes, errors as results, nothing of Alice's reaches Bob", async () => {
  const served = mcpHttpHandler({
    tools: (request) =>
      router.expose({
        functions: request.userId === "alice"
          ? EVERY
          : EVERY.filter((name) => name !== "alice_vault"),
        userId: request.userId,
      }),
    tokens: TOKENS,
    timeoutMs: 1500,
  });
  const kept: Kept = {
    sessions: {
      alice: await openSessions(served, "alice"),
      bob: await openSessions(served, "bob"),
    },
    states: { alice: [], bob: [] },
    questions: new Map(),
    eventIds: { alice: [], bob: [] },
  };
  const random = new FuzzRandom(SEED);
  const findings: string[] = [];
  const statuses: Record<number, number> = {};
  const answered: Record<string, number> = {};
  const replies: Promise<void>[] = [];
  let cases = 0;

  async function runCase(index: number, fuzz: FuzzCase): Promise<void> {
    cases++;
    const where = `case ${index} (${fuzz.user}, ${fuzz.era}, ${fuzz.httpMethod} ${fuzz.method}, ${
      fuzz.mutations.join(" ")
    })`;
    const request = new Request(ENDPOINT, {
      method: fuzz.httpMethod,
      headers: fuzz.headers,
      body: fuzz.body as BodyInit | undefined,
    });
    const sent = JSON.stringify(fuzz.headers) + (typeof fuzz.body === "string" ? fuzz.body : "");
    let response: Response | "late";
    try {
      response = await within(served(request), HANG_MS);
    } catch (error) {
      findings.push(`${where}: the handler threw ${(error as Error)?.stack ?? error}`);
      return;
    }
    if (response === "late") {
      findings.push(`${where}: no response within ${HANG_MS} ms`);
      return;
    }
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    const used = fuzz.headers["mcp-session-id"];
    if (response.status === 404 && used !== undefined) {
      // A session closed by a DELETE case: later cases pick from the open ones.
      kept.sessions[fuzz.user] = kept.sessions[fuzz.user].filter((id) => id !== used);
    }
    const type = response.headers.get("content-type") ?? "";
    const session = response.headers.get("mcp-session-id");
    if (session !== null && fuzz.era === "legacy") kept.sessions[fuzz.user].push(session);
    let messages: Json[] = [];
    let text = "";
    if (type.startsWith("text/event-stream") && response.body !== null) {
      const stream = fuzz.httpMethod === "GET" || /subscriptions\/listen/.test(sent);
      const read = await sseMessages(response, (asked) => {
        const id = fuzz.headers["mcp-session-id"];
        const reply = random.pick([
          {
            jsonrpc: "2.0",
            id: asked.id,
            result: { action: "accept", content: { approve: true } },
          },
          { jsonrpc: "2.0", id: asked.id, result: { action: "decline" } },
          { jsonrpc: "2.0", id: asked.id, result: random.pick([null, [], "x", { action: 5 }]) },
          { jsonrpc: "2.0", id: asked.id, error: { code: -1, message: "no" } },
          { jsonrpc: "2.0", id: 99_999, result: { action: "accept" } },
        ]);
        replies.push((async () => {
          const answer = await served(
            post(
              fuzz.user,
              reply,
              id === undefined
                ? {}
                : { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
            ),
          );
          if (answer.status >= 500) {
            findings.push(`${where}: the reply to a question got ${answer.status}`);
          }
          await answer.body?.cancel();
        })());
      }, stream);
      if (read === "late") {
        findings.push(`${where}: the event stream gave no response within ${HANG_MS} ms`);
        return;
      }
      ({ messages, text } = read);
      kept.eventIds[fuzz.user].push(...read.eventIds);
    } else {
      text = await response.text();
      if (type.startsWith("application/json") && text !== "") {
        try {
          const parsed = JSON.parse(text);
          messages = Array.isArray(parsed) ? parsed : [parsed];
        } catch {
          findings.push(
            `${where}: JSON content type with a body that is no JSON: ${text.slice(0, 200)}`,
          );
        }
      } else if (text !== "" && fuzz.httpMethod !== "HEAD") {
        findings.push(
          `${where}: ${response.status} answered as ${type || "no type"}: ${text.slice(0, 200)}`,
        );
      }
    }
    if (response.status >= 500 && response.status !== 503) {
      findings.push(`${where}: HTTP ${response.status}: ${text.slice(0, 300)}`);
    }
    if (/\n\s+at .*(\.ts|\.js|ext:)/.test(text)) {
      findings.push(`${where}: a stack in the answer: ${text.slice(0, 300)}`);
    }
    if (fuzz.user === "bob") {
      for (const mark of ALICE_MARKS) {
        if (text.includes(mark) && !sent.includes(mark)) {
          findings.push(`${where}: Bob saw "${mark}": ${text.slice(0, 300)}`);
        }
      }
    }
    for (const message of messages) {
      const fault = shapeFault(message);
      if (fault !== undefined) {
        findings.push(`${where}: ${fault}: ${JSON.stringify(message).slice(0, 300)}`);
      }
      const result = message?.result;
      if (result?.requestState !== undefined && typeof result.requestState === "string") {
        kept.states[fuzz.user].push(result.requestState);
        kept.questions.set(result.requestState, Object.keys(result.inputRequests ?? {}));
      }
      if (fuzz.method === "tools/call" && result !== undefined && result !== null) {
        answered[`${fuzz.era} ${result.resultType ?? "complete"} ${result.isError === true}`] ??= 0;
        answered[`${fuzz.era} ${result.resultType ?? "complete"} ${result.isError === true}`]++;
        if (result.resultType !== "input_required" && !Array.isArray(result.content)) {
          findings.push(
            `${where}: a call's result without content: ${JSON.stringify(result).slice(0, 300)}`,
          );
        }
        if (
          result.isError === true &&
          !(typeof result.content?.[0]?.text === "string" && result.content[0].text !== "")
        ) {
          findings.push(
            `${where}: an error result without text: ${JSON.stringify(result).slice(0, 300)}`,
          );
        }
      }
    }
  }

  for (let index = 0; index < CASES; index += 3) {
    const batch = [0, 1, 2].map((offset) => [index + offset, makeCase(random, kept)] as const);
    await Promise.all(batch.map(([at, fuzz]) => runCase(at, fuzz)));
    for (const user of ["alice", "bob"] as const) {
      if (kept.sessions[user].length === 0) kept.sessions[user] = await openSessions(served, user);
      for (const list of [kept.sessions[user], kept.states[user], kept.eventIds[user]]) {
        if (list.length > 20) list.splice(0, list.length - 20);
      }
    }
  }
  await Promise.allSettled(replies);
  await served.close();
  assertEquals(findings, []);
  assertEquals(cases, CASES);
  // The mutations reached the tools and both eras' call paths, not only the guards in front.
  for (const name of ["echo", "whoami", "big", "boom", "deploy", "asker", "alice_vault"]) {
    assert((ran[name] ?? 0) > 0, `${name} never ran: ${JSON.stringify(ran)}`);
  }
  for (const era of ["legacy", "modern"]) {
    assert(
      Object.keys(answered).some((key) => key.startsWith(`${era} complete true`)),
      JSON.stringify(answered),
    );
  }
  assert((statuses[200] ?? 0) > CASES / 4, JSON.stringify(statuses));
});
