/** How deep specifiers look into an argument; deeper arguments cannot be read (fail closed). */
const MAX_DEPTH = 64;
/** How many strings specifiers read in one call; more cannot be read (fail closed). */
const MAX_LEAVES = 10_000;

/**
 * The strings of a value at any depth (array elements, object keys and property values), for
 * value specifiers; with `scalars`, numbers, booleans and `null` too, as text.
 *
 * @param value The argument (a parsed JSON value).
 * @param scalars Whether to read non-string scalars too.
 * @returns The strings in document order, or `undefined` when the value is nested deeper or
 *   holds more than the specifiers read (the caller fails closed).
 */
export function argumentLeaves(
  value: unknown,
  scalars: boolean,
): string[] | undefined {
  const leaves: string[] = [];
  const walk = (node: unknown, depth: number): boolean => {
    if (typeof node === "string") leaves.push(node);
    else if (node !== null && typeof node === "object") {
      if (depth >= MAX_DEPTH) return false;
      // An object's keys are data too (a record of addresses, of headers): [key, value, …].
      for (const child of Array.isArray(node) ? node : Object.entries(node).flat()) {
        if (!walk(child, depth + 1)) return false;
      }
    } else if (scalars && node !== undefined) leaves.push(String(node));
    return leaves.length <= MAX_LEAVES;
  };
  return walk(value, 0) ? leaves : undefined;
}
