/**
 * Mutations of a real server's handshake answers (`server/discover` of the 2026-07-28 era,
 * `initialize` of 2025) for the gateway fuzzer: odd versions, capabilities, server info and
 * instructions, the result replaced, an error, a wrong status or content type.
 *
 * @module
 */
import { type FuzzRandom, ODD_VALUES } from "../../../../_helpers/fuzz_random.ts";
import { HOSTILE_TEXT } from "./_hostile_answers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const VERSIONS: readonly unknown[] = [
  ["2099-01-01"],
  [],
  "2026-07-28",
  [5],
  ["2026-07-28", "2026-07-28"],
  ["2025-06-18"],
  Array.from({ length: 10_000 }, (_, i) => `v${i}`),
  [HOSTILE_TEXT],
  null,
];
const CAPABILITIES: readonly unknown[] = [
  null,
  {},
  { tools: 5 },
  { tools: { listChanged: "yes" } },
  { tools: {}, tasks: { requests: { tools: { call: {} } } }, [HOSTILE_TEXT]: {} },
  { tools: {}, extensions: HOSTILE_TEXT },
  [],
];

/**
 * A mutated handshake answer, made from the real one.
 *
 * @param random The seeded source.
 * @param real The real server's JSON-RPC answer.
 * @returns The mutated answer, and what was mutated.
 */
export function mutatedHandshake(random: FuzzRandom, real: Json): {
  response: Response;
  kind: string;
} {
  const answer = structuredClone(real);
  const result = answer.result ?? {};
  const kind = random.pick([
    "versions",
    "capabilities",
    "server info",
    "instructions",
    "result",
    "error",
    "http",
    "other id",
  ]);
  switch (kind) {
    case "versions":
      if ("supportedVersions" in result) result.supportedVersions = random.pick(VERSIONS);
      else {result.protocolVersion = random.pick([
          "2099-01-01",
          5,
          null,
          HOSTILE_TEXT,
          "2026-07-28",
        ]);}
      break;
    case "capabilities":
      result.capabilities = random.pick(CAPABILITIES);
      break;
    case "server info": {
      const info = random.pick([{ name: HOSTILE_TEXT, version: HOSTILE_TEXT }, null, 5, {}]);
      if ("serverInfo" in result) result.serverInfo = info;
      else result._meta = { "io.modelcontextprotocol/serverInfo": info };
      break;
    }
    case "instructions":
      result.instructions = random.pick([HOSTILE_TEXT, "i".repeat(200_000), 5, null]);
      break;
    case "result":
      answer.result = random.pick(ODD_VALUES.slice(0, 22));
      break;
    case "error":
      delete answer.result;
      answer.error = random.pick([
        { code: -32601, message: "Method not found" },
        { code: -32602, message: HOSTILE_TEXT },
        { code: "x", message: 5 },
      ]);
      break;
    case "other id":
      answer.id = random.pick([answer.id + 1, null, String(answer.id)]);
      break;
  }
  if (kind === "http") {
    return {
      kind,
      response: new Response(random.pick(["", "<html/>", HOSTILE_TEXT]), {
        status: random.pick([404, 405, 400, 500, 200, 406]),
        headers: { "content-type": random.pick(["text/html", "application/json", ""]) },
      }),
    };
  }
  return { kind, response: Response.json(answer) };
}
