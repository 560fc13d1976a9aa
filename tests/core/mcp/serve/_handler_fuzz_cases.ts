/**
 * The cases of the `mcpHttpHandler` fuzzer: valid requests of both MCP eras, then mutated at the
 * envelope, the params, the headers and the body, from a seeded random source.
 *
 * @module
 */
import { type FuzzRandom, ODD_VALUES } from "../../../_helpers/fuzz_random.ts";
import { mutatedBody } from "./_handler_fuzz_bodies.ts";

/** The endpoint the cases are sent to (the handler runs in process). */
export const ENDPOINT = "http://127.0.0.1:8787/mcp";
export const TOKENS = { "tok-alice": "alice", "tok-bob": "bob" } as const;
export type User = "alice" | "bob";
export const TOKEN_OF: Record<User, string> = { alice: "tok-alice", bob: "tok-bob" };
/** Text only Alice's requests carry and only Alice's tool answers: Bob must never see it. */
export const ALICE_MARKS = ["ALICEMARK", "ALICE-VAULT", "alice_vault", "user alice"];

/** What earlier answers gave each user, for cases that reuse (or steal) it. */
export interface Kept {
  sessions: Record<User, string[]>;
  states: Record<User, string[]>;
  /** The question keys of each kept state, by state. */
  questions: Map<string, string[]>;
  eventIds: Record<User, string[]>;
}

/** One case: who sends it, in which era, and the request's parts. */
export interface FuzzCase {
  user: User;
  era: "legacy" | "modern";
  method: string;
  headers: Record<string, string>;
  httpMethod: string;
  body: string | Uint8Array | undefined;
  mutations: string[];
}

const META = (capabilities: Record<string, unknown>) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});

/** Valid messages' method and params (before the era's `_meta`). */
function baseParams(random: FuzzRandom, user: User, kept: Kept): [string, unknown][] {
  const mark = user === "alice" ? "ALICEMARK" : "bobmark";
  const state = random.pick(kept.states[user].length > 0 ? kept.states[user] : ["{}"]);
  const answer = random.pick([
    { action: "accept", content: { approve: true } },
    { action: "accept", content: { approve: true } },
    { action: "accept", content: { name: mark } },
    { action: "decline" },
    { action: "cancel" },
  ]);
  return [
    ["tools/list", {}],
    ["tools/call", { name: "echo", arguments: { text: `${mark} hello` } }],
    ["tools/call", { name: "whoami", arguments: {} }],
    ["tools/call", { name: "big", arguments: { n: random.pick([10, 5000, 50_000]) } }],
    ["tools/call", { name: "boom", arguments: {} }],
    ["tools/call", { name: "deploy", arguments: { env: mark } }],
    ["tools/call", { name: "asker", arguments: { about: mark } }],
    ["tools/call", { name: "alice_vault", arguments: {} }],
    ["tools/call", { name: "read_result", arguments: { handle: "r1", offset: 0 } }],
    ["tools/call", {
      ...random.pick([{ name: "deploy", arguments: { env: mark } }, {
        name: "asker",
        arguments: { about: mark },
      }]),
      inputResponses: Object.fromEntries(
        (kept.questions.get(state) ?? [random.pick(["input-0", "input-1", "approval"])]).map((
          key,
        ) => [key, answer]),
      ),
      requestState: state,
    }],
    ["resources/list", {}],
    ["resources/templates/list", {}],
    ["resources/read", { uri: random.pick(["ui://x", "file:///etc/passwd", "toolroute://r1"]) }],
    ["prompts/list", {}],
    ["prompts/get", { name: "p", arguments: {} }],
    ["completion/complete", {
      ref: { type: "ref/prompt", name: "p" },
      argument: { name: "a", value: "" },
    }],
    ["logging/setLevel", { level: "debug" }],
    ["ping", {}],
    ["tasks/get", { taskId: "t1" }],
    ["tasks/list", {}],
    ["tasks/cancel", { taskId: "t1" }],
    ["server/discover", {}],
  ];
}

const ID_VALUES: readonly unknown[] = [
  0,
  -1,
  1.5,
  1e308,
  2 ** 53 + 7,
  "s",
  "",
  "\ud800",
  null,
  true,
  {},
  [],
  "i".repeat(20_000),
];
const VERSIONS = [
  "2025-06-18",
  "2025-03-26",
  "2026-07-28",
  "2024-11-05",
  "garbage",
  "",
  "2099-01-01",
];
const ACCEPTS = [
  "application/json",
  "text/event-stream",
  "*/*",
  "",
  "text/html",
  "application/json, text/event-stream",
];
const CONTENT_TYPES = [
  "text/plain",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "multipart/form-data",
  "",
  "application/x-www-form-urlencoded",
];

/**
 * One case: a valid message of a random method for a random user and era, then 0–3 mutations.
 *
 * @param random The seeded source.
 * @param kept What earlier answers gave each user.
 * @returns The case.
 */
export function makeCase(random: FuzzRandom, kept: Kept): FuzzCase {
  const user: User = random.chance(0.5) ? "alice" : "bob";
  const other: User = user === "alice" ? "bob" : "alice";
  const era = random.chance(0.5) ? "legacy" : "modern";
  const [method, rawParams] = random.pick(baseParams(random, user, kept));
  let params = structuredClone(rawParams) as Record<string, unknown>;
  const capabilities = random.chance(0.5) ? { elicitation: { form: {} } } : {};
  if (era === "modern") params = { ...params, _meta: META(capabilities) };
  const message: Record<string, unknown> = { jsonrpc: "2.0", id: random.int(1000), method, params };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${TOKEN_OF[user]}`,
  };
  if (era === "modern") {
    Object.assign(headers, { "mcp-protocol-version": "2026-07-28", "mcp-method": method });
    const named = params.name ?? params.uri ?? params.taskId;
    if (typeof named === "string") headers["mcp-name"] = named;
  } else {
    headers["mcp-protocol-version"] = "2025-06-18";
    const session = random.pick(kept.sessions[user]);
    if (session !== undefined) headers["mcp-session-id"] = session;
  }
  const mutations: string[] = [];
  let body: string | Uint8Array | undefined;
  let bodyKind: number | undefined;
  let httpMethod = "POST";
  const count = random.pick([0, 1, 1, 2, 3]);
  for (let i = 0; i < count; i++) {
    const kind = random.int(30);
    mutations.push(`m${kind}`);
    switch (kind) {
      case 0:
        message.id = random.pick(ID_VALUES);
        break;
      case 1:
        delete message.id;
        break;
      case 2:
        message.jsonrpc = random.pick(["1.0", 2, null, undefined]);
        break;
      case 3:
        message.method = random.pick([
          5,
          null,
          "tools/call ",
          "__proto__",
          "constructor",
          "rpc.x",
          "initialize",
          "notifications/initialized",
          "subscriptions/listen",
        ]);
        break;
      case 4:
        message.params = random.pick([null, [], "p", 7, undefined]);
        break;
      case 5:
        if (typeof params.name === "string") params.name = random.pick(ODD_VALUES);
        break;
      case 6:
        params.arguments = random.pick(ODD_VALUES);
        break;
      case 7: {
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        const key = random.pick([
          "text",
          "n",
          "env",
          "about",
          "handle",
          "offset",
          "__proto__",
          "extra",
        ]);
        params.arguments = { ...args, [key]: random.pick(ODD_VALUES) };
        break;
      }
      case 8:
        params._meta = random.pick([...ODD_VALUES.slice(0, 12), { progressToken: {} }, {
          "io.modelcontextprotocol/protocolVersion": random.pick(VERSIONS),
        }, META(random.pick([{ elicitation: "yes" }, { elicitation: [] }, null, 5]) as never)]);
        break;
      case 9:
        params.requestState = random.pick([
          ...ODD_VALUES.slice(0, 18),
          ...kept.states[other],
          ...kept.states[user].map((state) => state.slice(0, random.int(state.length))),
          ...kept.states[user].map((state) => state.replace(/[0-9a-f]/, "0")),
        ]);
        break;
      case 10:
        params.inputResponses = random.pick([
          ...ODD_VALUES.slice(0, 20),
          { "input-0": random.pick(ODD_VALUES) },
          { "input-0": { action: random.pick(ODD_VALUES), content: random.pick(ODD_VALUES) } },
          Object.fromEntries(
            Array.from({ length: 300 }, (_, i) => [`input-${i}`, { action: "accept" }]),
          ),
        ]);
        break;
      case 11:
        if (method === "resources/read") {
          params.uri = random.pick([
            ...ODD_VALUES.slice(0, 18),
            "ui://alice_vault/x",
            "data:,x",
            "javascript:1",
            "ui://../../x",
            "toolroute://result/../../",
          ]);
        } else {params[random.pick(["uri", "ref", "level", "taskId", "cursor"])] = random.pick(
            ODD_VALUES,
          );}
        break;
      case 12:
        Object.defineProperty(message, random.pick(["result", "error", "extra", "__proto__"]), {
          value: random.pick(ODD_VALUES),
          enumerable: true,
          configurable: true,
          writable: true,
        });
        break;
      case 13:
        headers["mcp-session-id"] = random.pick([
          ...kept.sessions[other],
          "",
          "x".repeat(5000),
          "00000000-0000-0000-0000-000000000000",
          "\u00e9",
        ]);
        break;
      case 14:
        delete headers["mcp-session-id"];
        break;
      case 15:
        headers["mcp-protocol-version"] = random.pick(VERSIONS);
        break;
      case 16:
        headers.accept = random.pick(ACCEPTS);
        break;
      case 17:
        headers["content-type"] = random.pick(CONTENT_TYPES);
        break;
      case 18:
        headers.authorization = random.pick([
          `Bearer ${TOKEN_OF[other]}`,
          "Bearer ",
          "Basic dG9rLWFsaWNlOg==",
          `Bearer ${TOKEN_OF[user]}, Bearer ${TOKEN_OF[other]}`,
          `bearer ${TOKEN_OF[user]}`,
          `Bearer  ${TOKEN_OF[user]} `,
        ]);
        break;
      case 19:
        headers["last-event-id"] = random.pick([
          ...kept.eventIds[other],
          ...kept.eventIds[user],
          "",
          "x",
          "0_",
        ]);
        httpMethod = random.pick(["GET", "POST"]);
        break;
      case 20:
        headers["content-encoding"] = random.pick(["gzip", "deflate", "br", "identity"]);
        break;
      case 21:
        httpMethod = random.pick(["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]);
        if (random.chance(0.3)) {
          headers.origin = random.pick(["http://localhost", "http://evil.example"]);
        }
        break;
      case 22:
        headers["mcp-method"] = random.pick(["tools/list", "tools/call", "", "x"]);
        headers["mcp-name"] = random.pick(["alice_vault", "echo", "\u00e9", ""]);
        break;
      default:
        // A body mutation: made last, from the message as the other mutations left it.
        bodyKind = kind;
    }
  }
  if (bodyKind !== undefined) body = mutatedBody(random, bodyKind, message);
  if (body === undefined && httpMethod !== "GET" && httpMethod !== "HEAD") {
    body = JSON.stringify(message);
  }
  if (httpMethod === "GET" || httpMethod === "HEAD") body = undefined;
  return { user, era, method, headers, httpMethod, body, mutations };
}
