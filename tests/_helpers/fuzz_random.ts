/**
 * The seeded randomness and odd JSON values of the protocol fuzzers: the same seed gives the same
 * cases on every run, so a failure names a case that can be run again.
 *
 * @module
 */

/** A seeded source of choices (mulberry32). */
export class FuzzRandom {
  #state: number;

  /** @param seed The seed; the same seed gives the same choices. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, below). */
  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** True with the given probability. */
  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** One of the items. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** Nested `depth` times: arrays or objects, as JSON text (a parser's stack, not ours, is tried). */
export function deepJsonText(depth: number, kind: "array" | "object" = "array"): string {
  return kind === "array"
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A nested value `depth` levels deep, built without recursion. */
export function deepValue(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/**
 * Values of every JSON type and the edges of each: numbers past 2^53, lone surrogates, control
 * and bidi characters, prototype names, empty and long strings, empty and nested containers.
 */
export const ODD_VALUES: readonly unknown[] = Object.freeze([
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  Number.MIN_VALUE,
  "",
  " ",
  "\ud800",
  "\udfff\ud800",
  "\u0000\u001b[31mred\u202e",
  "__proto__",
  "constructor",
  "x".repeat(70_000),
  [],
  [null],
  {},
  { __proto__: null, constructor: "c" },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  deepValue(60),
]);

/**
 * JSON text of a value with one of its string-keyed members given twice (the second wins in
 * `JSON.parse`), or with a `__proto__` member added as an own key.
 */
export function withDuplicateKey(value: Record<string, unknown>, key: string, extra: unknown) {
  const text = JSON.stringify(value);
  const member = `${JSON.stringify(key)}:${JSON.stringify(extra) ?? "null"}`;
  return text === "{}" ? `{${member}}` : `{${member},${text.slice(1)}`;
}
