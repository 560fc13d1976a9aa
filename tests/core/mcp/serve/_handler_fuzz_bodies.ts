/**
 * The body mutations of the `mcpHttpHandler` fuzzer: batches, empty and truncated bodies, bytes
 * that are no UTF-8 (or UTF-16), duplicate and `__proto__` keys, deep nesting, lone surrogates and
 * escapes written into the JSON text.
 *
 * @module
 */
import {
  deepJsonText,
  deepValue,
  type FuzzRandom,
  withDuplicateKey,
} from "../../../_helpers/fuzz_random.ts";

/** Body mutations are kinds from this one on. */
export const FIRST_BODY_KIND = 23;

/**
 * A mutated body of a message.
 *
 * @param random The seeded source.
 * @param kind The mutation (23 and up).
 * @param message The message as the other mutations left it.
 * @returns The body.
 */
export function mutatedBody(
  random: FuzzRandom,
  kind: number,
  message: Record<string, unknown>,
): string | Uint8Array {
  const method = JSON.stringify(message.method ?? "x");
  const params = (message.params ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 23:
      return JSON.stringify(
        random.pick([[message], [], [message, message], [1], [message, {
          jsonrpc: "2.0",
          method: "notifications/initialized",
        }]]),
      );
    case 24:
      return random.pick([
        "",
        " ",
        "null",
        "1",
        '"s"',
        "{",
        "[",
        "{}",
        "\ufeff" + JSON.stringify(message),
      ]);
    case 25: {
      const text = JSON.stringify(message);
      return text.slice(0, random.int(text.length));
    }
    case 26: {
      const text = JSON.stringify(message);
      return random.chance(0.5)
        ? new Uint8Array([
          ...new TextEncoder().encode(text.slice(0, 20)),
          0xff,
          0xfe,
          0xc0,
          ...new TextEncoder().encode(text.slice(20)),
        ])
        : new Uint8Array([
          0xff,
          0xfe,
          ...[...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]),
        ]);
    }
    case 27:
      return withDuplicateKey(
        message,
        random.pick(["method", "id", "params", "__proto__", "jsonrpc"]),
        random.pick(["tools/call", "initialize", 9, { name: "alice_vault" }, null]),
      );
    case 28:
      return random.chance(0.5)
        ? `{"jsonrpc":"2.0","id":1,"method":${method},"params":${
          deepJsonText(
            random.pick([100, 5000, 200_000]),
            random.pick(["array", "object"] as const),
          )
        }}`
        : JSON.stringify({
          ...message,
          params: { ...params, arguments: deepValue(random.pick([50, 500])) },
        });
    default:
      // Lone surrogates and escapes written into the JSON text itself.
      return JSON.stringify(message).replace(
        /"(ALICEMARK|bobmark|echo|tools\/call)/,
        random.pick(['"\\ud800', '"\\udc00\\ud800', '"\\u0000', '"\\u202e']),
      );
  }
}
