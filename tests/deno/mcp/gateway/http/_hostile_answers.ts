/**
 * The answers of the hostile upstream the gateway fuzzer calls: a `tools/call` answered, from a
 * seeded random source, with a mutated result (content blocks of wrong shapes, deep or huge
 * structured content, control and bidi characters, `input_required` with odd questions), a
 * JSON-RPC error of any code, the answer of another id, notifications and questions before it, an
 * event stream split at odd places, a wrong content type or status, a false gzip claim, or an
 * answer that never ends.
 *
 * @module
 */
import { deepValue, FuzzRandom, ODD_VALUES } from "../../../../_helpers/fuzz_random.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Text a model or terminal must never get raw: ANSI, NUL, a bidi override, C1 controls. */
export const HOSTILE_TEXT = "x\u001b[2J\u001b]0;pwn\u0007\u0000\u202eevil\u2066\u0085\u009b31m";

/** A planned answer: what it is (for messages) and how to make it for a request's id. */
export interface HostileAnswer {
  kinds: string[];
  /** Whether the server says the arguments are invalid (then `invalid_arguments` is right). */
  blamesArguments: boolean;
  /** Whether the answer never ends (the call ends at its deadline). */
  endless: boolean;
  respond(id: Json, progressToken: Json, modern: boolean): Response;
}

/** Remote text: hostile, plain, empty, a lone surrogate, now and then 100,000 characters. */
const text = (random: FuzzRandom): string =>
  random.chance(0.03)
    ? "y".repeat(100_000)
    : random.pick([HOSTILE_TEXT, "plain", "", "y".repeat(10), "\ud800"]);

function oddBlock(random: FuzzRandom): Json {
  return random.pick<() => Json>([
    () => ({ type: "text", text: text(random) }),
    () => ({ type: "text", text: random.pick(ODD_VALUES) }),
    () => ({ type: random.pick(ODD_VALUES), text: "t" }),
    () => ({ text: "no type" }),
    () => ({ type: "image", data: random.pick([HOSTILE_TEXT, "aGk=", 5]), mimeType: text(random) }),
    () => ({ type: "audio", data: "aGk=", mimeType: random.pick(ODD_VALUES) }),
    () => ({
      type: "resource",
      resource: { uri: text(random), text: text(random), mimeType: text(random) },
    }),
    () => ({ type: "resource", resource: { uri: "x", blob: HOSTILE_TEXT } }),
    () => ({ type: "resource", resource: random.pick(ODD_VALUES) }),
    () => ({ type: "resource_link", uri: text(random), name: text(random), title: text(random) }),
    () => ({ type: "resource_link", name: "no uri" }),
    () => ({
      type: "text",
      text: "t",
      annotations: { audience: [HOSTILE_TEXT] },
      _meta: { [HOSTILE_TEXT]: HOSTILE_TEXT },
    }),
    () => random.pick(ODD_VALUES),
  ])();
}

/** A `CallToolResult`-like value, mutated. */
function oddResult(random: FuzzRandom): Json {
  const result: Json = {};
  const blocks = random.pick([0, 1, 1, 2, 5, 3000]);
  // Many blocks are short ones: the answer's size stays a few megabytes at most.
  result.content = random.chance(0.1)
    ? random.pick(ODD_VALUES)
    : blocks > 5
    ? Array.from({ length: blocks }, (_, i) => ({ type: "text", text: i % 2 ? HOSTILE_TEXT : "b" }))
    : Array.from(
      { length: blocks },
      () => random.chance(0.6) ? { type: "text", text: text(random) } : oddBlock(random),
    );
  if (random.chance(0.3)) result.isError = random.pick([true, false, "yes", 1, null]);
  if (random.chance(0.3)) {
    result.structuredContent = random.pick([
      { note: HOSTILE_TEXT, [HOSTILE_TEXT]: [HOSTILE_TEXT, { deep: HOSTILE_TEXT }] },
      { n: 1 },
      deepValue(random.pick([30, 70, 150, 3000])),
      { wide: Array.from({ length: 50_000 }, (_, i) => i) },
      ...ODD_VALUES.slice(0, 18),
    ]);
  }
  if (random.chance(0.1)) result._meta = random.pick([{ [HOSTILE_TEXT]: 1 }, HOSTILE_TEXT, null]);
  if (random.chance(0.1)) {
    result[random.pick(["task", "toolResult", "extra"])] = random.pick(ODD_VALUES);
  }
  return result;
}

function inputRequired(random: FuzzRandom): Json {
  const question = random.pick<Json>([
    {
      method: "elicitation/create",
      params: {
        message: HOSTILE_TEXT,
        requestedSchema: {
          type: "object",
          properties: { [HOSTILE_TEXT]: { type: "string", description: HOSTILE_TEXT } },
        },
      },
    },
    {
      method: "elicitation/create",
      params: {
        mode: "url",
        message: "go",
        url: "https://evil.example/\u001b",
        elicitationId: "e",
      },
    },
    { method: "elicitation/create", params: random.pick(ODD_VALUES) },
    { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } },
    { method: "roots/list" },
    { method: random.pick(ODD_VALUES) },
    random.pick(ODD_VALUES),
  ]);
  return {
    resultType: "input_required",
    ...(random.chance(0.8)
      ? {
        inputRequests: random.chance(0.2)
          ? random.pick(ODD_VALUES)
          : { [random.pick(["q", HOSTILE_TEXT, "__proto__"])]: question },
      }
      : {}),
    ...(random.chance(0.6)
      ? { requestState: random.pick([HOSTILE_TEXT, "s", "z".repeat(200_000), 5, null]) }
      : {}),
  };
}

/** A server's notification or question sent before the answer. */
function interleaved(random: FuzzRandom, progressToken: Json): Json {
  return random.pick<Json>([
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken, progress: random.pick([1, -1, 1e308, "x"]), message: HOSTILE_TEXT },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "not-ours", progress: 1 },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: {
        level: random.pick(["info", "emergency", "x"]),
        logger: HOSTILE_TEXT,
        data: { [HOSTILE_TEXT]: HOSTILE_TEXT },
      },
    },
    { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    {
      jsonrpc: "2.0",
      id: "q1",
      method: "elicitation/create",
      params: { message: HOSTILE_TEXT, requestedSchema: { type: "object", properties: {} } },
    },
    { jsonrpc: "2.0", id: 77, method: "sampling/createMessage", params: {} },
    { jsonrpc: "2.0", id: 123_456, result: { content: [] } },
    { jsonrpc: "2.0", method: HOSTILE_TEXT },
  ]);
}

/** Event-stream text of messages, with odd but legal (and some illegal) framing. */
function sseText(random: FuzzRandom, messages: Json[]): string {
  const eol = random.pick(["\n", "\r\n", "\r"]);
  return (random.chance(0.2) ? "\ufeff" : "") + messages.map((message, i) => {
    const data = JSON.stringify(message);
    const lines = random.chance(0.2)
      ? [`data:${data.slice(0, 1)}`, `data:${data.slice(1)}`]
      : [`data: ${data}`];
    return [
      ...(random.chance(0.3) ? [": comment"] : []),
      ...(random.chance(0.3) ? [`id: ${random.pick([i, HOSTILE_TEXT, ""])}`] : []),
      ...(random.chance(0.2) ? [`event: ${random.pick(["message", "other", ""])}`] : []),
      ...(random.chance(0.1) ? ["retry: -5"] : []),
      ...lines,
    ].join(eol) + eol + eol;
  }).join("");
}

/** A body streamed in chunks cut at random places; `endless` keeps it open after them. */
function chunked(random: FuzzRandom, body: string, endless: boolean): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(body);
  const cuts = Array.from({ length: random.int(6) }, () => random.int(bytes.length + 1)).sort((
    a,
    b,
  ) => a - b);
  let at = 0;
  const parts = [...cuts, bytes.length].map((cut) => {
    const part = bytes.slice(at, Math.max(at, cut));
    at = Math.max(at, cut);
    return part;
  });
  return new ReadableStream({
    async pull(controller) {
      const part = parts.shift();
      if (part === undefined) {
        if (!endless) controller.close();
        return; // left open: pull is not called again until something is enqueued
      }
      await new Promise((resolve) => setTimeout(resolve, random.int(3)));
      controller.enqueue(part);
    },
  });
}

/**
 * Plans one hostile answer.
 *
 * @param random The seeded source.
 * @returns The answer.
 */
export function hostileAnswer(random: FuzzRandom): HostileAnswer {
  const kinds: string[] = [];
  const shape = random.pick([
    "result",
    "result",
    "result",
    "input_required",
    "error",
    "other_id",
    "http",
    "raw",
  ]);
  kinds.push(shape);
  const errorCode = random.pick([-32602, -32603, -32601, -32000, -32042, 1, 2 ** 40, 401, 1.5]);
  const blamesArguments = shape === "error" && errorCode === -32602;
  const endless = random.chance(0.04);
  if (endless) kinds.push("endless");
  const sse = random.chance(0.5);
  if (sse) kinds.push("sse");
  const before = random.chance(0.3) ? random.int(4) + 1 : 0;
  if (before > 0) kinds.push(`interleaved ${before}`);
  const result = shape === "input_required" ? inputRequired(random) : oddResult(random);
  const status = random.pick([500, 502, 404, 429, 400, 202, 200, 204, 403]);
  const raw = random.pick([
    "",
    "{",
    "null",
    "[]",
    "<html>oops</html>",
    HOSTILE_TEXT,
    '{"jsonrpc":"2.0"}',
  ]);
  const contentType = random.chance(0.15)
    ? random.pick([
      "text/html",
      "text/plain",
      "application/octet-stream",
      "",
      sse ? "application/json" : "text/event-stream",
    ])
    : sse
    ? "text/event-stream"
    : "application/json";
  if (random.chance(0.15)) kinds.push(`type ${contentType}`);
  const gzipClaim = random.chance(0.05);
  if (gzipClaim) kinds.push("gzip claim");
  const modernStamp = random.chance(0.8);
  const errorMessage = random.pick([HOSTILE_TEXT, "", 5, "m".repeat(50_000)]);
  const plan = [0, 1, 2, 3].map(() => random.next());
  // What the answer draws when it is made has a source of its own: answers made in any order
  // (calls run side by side) draw the same.
  const own = new FuzzRandom(random.int(2 ** 31));
  return {
    kinds,
    blamesArguments,
    endless,
    respond(id, progressToken, modern) {
      if (shape === "http") {
        return new Response(raw, {
          status,
          headers: {
            "content-type": contentType,
            "retry-after": own.pick(["-1", "soon", "99999999999", "1.5"]),
          },
        });
      }
      let answer: Json;
      if (shape === "error") {
        answer = {
          jsonrpc: "2.0",
          id,
          error: { code: errorCode, message: errorMessage, data: { [HOSTILE_TEXT]: HOSTILE_TEXT } },
        };
      } else {
        const body = modern && modernStamp && !("resultType" in result)
          ? { resultType: "complete", ...result }
          : result;
        answer = {
          jsonrpc: "2.0",
          id: shape === "other_id" ? own.pick([id + 1, String(id), null]) : id,
          result: body,
        };
      }
      const messages = [
        ...Array.from({ length: before }, () => interleaved(own, progressToken)),
        answer,
      ];
      if (shape === "raw") {
        return new Response(raw + (plan[0] < 0.5 ? JSON.stringify(answer) : ""), {
          headers: { "content-type": contentType },
        });
      }
      const text = sse
        ? sseText(own, messages)
        : messages.length > 1 && plan[1] < 0.5
        ? JSON.stringify(messages)
        : JSON.stringify(answer);
      return new Response(chunked(own, text, endless), {
        headers: {
          "content-type": contentType,
          ...(gzipClaim ? { "content-encoding": "gzip" } : {}),
        },
      });
    },
  };
}
