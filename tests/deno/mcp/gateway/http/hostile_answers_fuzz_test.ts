/**
 * Structure-aware fuzzing of the gateway's client face: a loopback MCP server of both eras (the
 * SDK's handler for the handshake and the listing) answers every `tools/call` with a mutated
 * answer from `_hostile_answers.ts`, four calls at a time. For every call: `toolSet.call`
 * resolves (never rejects, never past its deadline), an error has a code of the list and text,
 * a server's fault is not blamed on the model's arguments, nothing the server sent reaches the
 * result with a control or bidi character unescaped, and no promise is left rejected unhandled.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ERROR_CODES, ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";
import { hasUnsafeChars } from "../../../../../src/core/mcp/gateway/tools/remote_text.ts";
import { FuzzRandom } from "../../../../_helpers/fuzz_random.ts";
import { type HostileAnswer, hostileAnswer } from "./_hostile_answers.ts";
import { mutatedHandshake } from "./_mutated_handshake.ts";
import { within } from "../../../../_helpers/within.ts";

const SEED = 0x6a7e40;
const CASES_PER_ERA = 160;
const TIMEOUT_MS = 1000;
/** Far past the call's deadline: a call still pending then hangs. */
const HANG_MS = 15_000;
/** Codes that tell the model it (or the person, or the host) was at fault: never a server's. */
const NOT_THE_SERVERS = ["unknown_tool", "permission_denied", "approval_required", "aborted"];

// deno-lint-ignore no-explicit-any
type Json = any;

/** Answers a handshake message (`server/discover`, `initialize`) given the real server's answer. */
type Handshake = (real: Json) => Response;

function hostileUpstream(answers: HostileAnswer[], handshake?: Handshake) {
  const seen = { calls: 0, replies: 0, handshakes: 0 };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "hostile", version: "1" });
    const input = z.object({ case: z.number() });
    server.registerTool("t", { inputSchema: input }, () => ({ content: [] }));
    server.registerTool("o", {
      inputSchema: input,
      outputSchema: z.object({ n: z.number() }),
    }, () => ({ content: [], structuredContent: { n: 1 } }));
    return server;
  }, { legacy: "stateless", responseMode: "json" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = req.method === "POST" ? await req.text() : undefined;
    let message: Json;
    try {
      message = text === undefined ? undefined : JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (handshake !== undefined && /^(server\/discover|initialize)$/.test(message?.method)) {
      seen.handshakes++;
      const forwarded = new Request(req.url, { method: "POST", headers: req.headers, body: text });
      const real = await handler.fetch(forwarded);
      // The 2025 side answers on an event stream: its one message is the answer.
      const body = await real.text();
      return handshake(JSON.parse(body.match(/^data: ?(.*)$/m)?.[1] ?? body));
    }
    if (message?.method === "tools/call" && answers.length > 0) {
      seen.calls++;
      const answer = answers[message.params?.arguments?.case];
      const modern = req.headers.get("mcp-protocol-version") === "2026-07-28";
      return answer.respond(message.id, message.params?._meta?.progressToken, modern);
    }
    if (message !== undefined && message.method === undefined) {
      // The gateway's answer to a question the server put (elicitation, sampling).
      seen.replies++;
      return new Response(null, { status: 202 });
    }
    return handler.fetch(
      new Request(req.url, { method: req.method, headers: req.headers, body: text }),
    );
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    seen,
    async close() {
      await handler.close();
      await server.shutdown();
    },
  };
}

/** Every string a result shows the model: its text, and its blocks' and structured content's. */
function shownStrings(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === "string") out.push(value);
  else if (value !== null && typeof value === "object" && depth < 200) {
    for (const [key, inner] of Object.entries(value)) {
      out.push(key);
      // Base64 payloads are bytes, not text, and are passed on as they are (documented).
      if (key !== "data" && key !== "blob") shownStrings(inner, out, depth + 1);
    }
  }
  return out;
}

Deno.test("fuzzing the gateway with a hostile upstream's answers in both eras: every call resolves with a result, errors carry a listed code, nothing unescaped, no unhandled rejection", async () => {
  const random = new FuzzRandom(SEED);
  const answers = Array.from({ length: CASES_PER_ERA * 2 }, () => hostileAnswer(random));
  const upstream = hostileUpstream(answers);
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    unhandled.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  const findings: string[] = [];
  const codes: Record<string, number> = {};
  let calls = 0;
  try {
    for (const [e, era] of (["2025", "2026-07-28"] as const).entries()) {
      const router = new ToolRouter({
        maxResultChars: 10_000,
        gateway: new McpGateway({ servers: { s: { url: upstream.url, protocol: era } } }),
      });
      try {
        const tools = await router.expose({ mcpServers: ["s"] });
        assertEquals(tools.names.toSorted(), ["o", "t"], era);
        const one = async (index: number) => {
          const answer = answers[index];
          const tool = index % 3 === 0 ? "o" : "t";
          const where = `${era} case ${index} ${tool} (${answer.kinds.join(", ")})`;
          calls++;
          let result;
          try {
            result = await within(
              tools.call(tool, { case: index }, { timeoutMs: TIMEOUT_MS }),
              HANG_MS,
            );
          } catch (error) {
            findings.push(`${where}: call rejected: ${(error as Error)?.stack ?? error}`);
            return;
          }
          if (result === "late") {
            findings.push(`${where}: call pending ${HANG_MS} ms past a ${TIMEOUT_MS} ms deadline`);
            return;
          }
          const key = `${result.isError ? result.code : "ok"}`;
          codes[key] = (codes[key] ?? 0) + 1;
          if (result.isError) {
            if (!ERROR_CODES.includes(result.code!)) findings.push(`${where}: code ${result.code}`);
            if (result.text === "") findings.push(`${where}: an error without text`);
            if (NOT_THE_SERVERS.includes(result.code!)) {
              findings.push(
                `${where}: the server's fault as ${result.code}: ${result.text.slice(0, 200)}`,
              );
            }
            if (result.code === "invalid_arguments" && !answer.blamesArguments) {
              findings.push(
                `${where}: the server's fault as invalid_arguments: ${result.text.slice(0, 300)}`,
              );
            }
          }
          const shown = shownStrings({
            text: result.text,
            content: result.content,
            structuredContent: result.structuredContent,
          });
          const unsafe = shown.find(hasUnsafeChars);
          if (unsafe !== undefined) {
            findings.push(`${where}: unescaped: ${JSON.stringify(unsafe.slice(0, 200))}`);
          }
        };
        const start = e * CASES_PER_ERA;
        for (let index = start; index < start + CASES_PER_ERA; index += 4) {
          await Promise.all([0, 1, 2, 3].map((offset) => one(index + offset)));
        }
      } finally {
        await router.close();
      }
    }
  } finally {
    await upstream.close();
    // A rejection left unhandled is reported at the next turns.
    await new Promise((resolve) => setTimeout(resolve, 50));
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
  assertEquals(findings, []);
  assertEquals(unhandled.map(String), []);
  assertEquals(calls, CASES_PER_ERA * 2);
  // The mutations reached the client: the server answered (nearly) every call itself.
  assert(upstream.seen.calls >= calls * 0.9, JSON.stringify(upstream.seen));
  assert((codes.ok ?? 0) > 0 && Object.keys(codes).length > 3, JSON.stringify(codes));
});

const HANDSHAKE_CASES = 60;

Deno.test("fuzzing the gateway with mutated discover and initialize answers: exposing resolves, a call resolves with a result, nothing unescaped", async () => {
  const random = new FuzzRandom(SEED + 1);
  let current: Handshake = (real) => Response.json(real);
  const upstream = hostileUpstream([], (real) => current(real));
  const findings: string[] = [];
  const outcomes: Record<string, number> = {};
  let cases = 0;
  try {
    for (let index = 0; index < HANDSHAKE_CASES; index++) {
      const protocol = random.pick(["auto", "2025", "2026-07-28"] as const);
      const own = new FuzzRandom(random.int(2 ** 31));
      const kinds: string[] = [];
      // Every handshake of the case is mutated; the first one only, half of the time.
      let left = own.chance(0.5) ? 1 : Infinity;
      current = (real) => {
        if (left-- <= 0) return Response.json(real);
        const { response, kind } = mutatedHandshake(own, real);
        kinds.push(kind);
        return response;
      };
      const where = () => `case ${index} ${protocol} (${kinds.join(", ")})`;
      cases++;
      const router = new ToolRouter({
        gateway: new McpGateway({ servers: { s: { url: upstream.url, protocol } } }),
      });
      try {
        const exposed = await within(router.expose({ mcpServers: ["s"] }), HANG_MS)
          .catch((error) => (findings.push(`${where()}: expose rejected: ${error}`), undefined));
        if (exposed === "late") findings.push(`${where()}: expose pending past ${HANG_MS} ms`);
        if (exposed === undefined || exposed === "late") continue;
        // The listing and the reasons a server is missing (shown to the host and the model).
        const shown = shownStrings([exposed.toMcp(), exposed.missing]);
        if (shown.some(hasUnsafeChars)) findings.push(`${where()}: unescaped in the listing`);
        const result = await within(
          exposed.call("t", { case: 0 }, { timeoutMs: TIMEOUT_MS }),
          HANG_MS,
        ).catch((error) => (findings.push(`${where()}: call rejected: ${error}`), undefined));
        if (result === "late") findings.push(`${where()}: call pending past ${HANG_MS} ms`);
        if (result === undefined || result === "late") continue;
        const key = result.isError ? result.code! : "ok";
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (result.isError && !ERROR_CODES.includes(result.code!)) {
          findings.push(`${where()}: code ${result.code}`);
        }
        if (result.code === "invalid_arguments" || result.code === "permission_denied") {
          findings.push(`${where()}: a handshake's fault as ${result.code}: ${result.text}`);
        }
        if (shownStrings(result).some(hasUnsafeChars)) findings.push(`${where()}: unescaped`);
      } finally {
        await router.close();
      }
    }
  } finally {
    await upstream.close();
  }
  assertEquals(findings, []);
  assertEquals(cases, HANDSHAKE_CASES);
  // The mutated handshakes reached the gateway, and some connections still came up.
  assert(upstream.seen.handshakes >= HANDSHAKE_CASES, JSON.stringify(upstream.seen));
  assert((outcomes.ok ?? 0) > 0 && Object.keys(outcomes).length > 1, JSON.stringify(outcomes));
});
