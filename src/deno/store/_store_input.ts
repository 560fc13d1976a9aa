// The checks every store of this folder makes of its input, with the same messages as
// `MemoryStore`'s: a key of string parts, a JSON value (a positive `expireIn` is core's
// `checkExpireIn`).

// The key's parts, checked (a copy: Deno KV takes a mutable array).
export function checkKey(key: readonly string[]): string[] {
  if (!Array.isArray(key) || key.length === 0) {
    throw new TypeError("Cannot use an empty key: pass at least one part");
  }
  for (const part of key) {
    if (typeof part !== "string") {
      throw new TypeError(`Cannot use key part "${String(part)}": parts are strings`);
    }
  }
  return [...key];
}

export function encodeValue(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new TypeError("Cannot store a value that is not JSON: pass plain data");
  }
  return json;
}

export function notANumber(key: readonly string[]): TypeError {
  return new TypeError(`Cannot increment ${JSON.stringify(key)}: it holds something not a number`);
}
