/** How {@linkcode mapJsonStrings} walks a value. */
export interface JsonStringsOptions {
  /** Returns the string itself when it has nothing to change. */
  map: (text: string) => string;
  /** A field of the top object whose value is kept as it is (a base64 payload). */
  kept?: string;
  /** The level of the value (1 for a whole value). */
  depth?: number;
  /** The deepest level walked (a bound, before the stack runs out). */
  max: number;
  /** What a value deeper than `max` becomes; it throws to refuse the whole value. */
  tooDeep: () => unknown;
}

/**
 * Every string and name of a JSON value passed through `map` (the escaping of remote text, the
 * redaction of secrets, the secret scanner hook): the same value when nothing changed, else a copy
 * of only what changed.
 */
export function mapJsonStrings(value: unknown, options: JsonStringsOptions): unknown {
  const { map, kept, depth = 1, max, tooDeep } = options;
  if (typeof value === "string") return map(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > max) return tooDeep();
  const inner = { map, depth: depth + 1, max, tooDeep };
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = mapJsonStrings(value[i], inner);
      if (item === value[i]) continue;
      copy ??= [...value];
      copy[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const name = map(key);
    const item = key === kept ? record[key] : mapJsonStrings(record[key], inner);
    if (copy === undefined && name === key && item === record[key]) continue;
    if (copy === undefined) {
      // The first change: copy what came before it, then go on copying.
      copy = {};
      for (const earlier of keys.slice(0, i)) setOwn(copy, earlier, record[earlier]);
    }
    setOwn(copy, name, item);
  }
  return copy ?? value;
}

/**
 * A content block with every string passed through `map` but its base64 payload (an image's or
 * audio's `data`, an embedded resource's `blob`): bytes, which are no text.
 */
export function mapBlockStrings(
  block: unknown,
  options: Pick<JsonStringsOptions, "map" | "max" | "tooDeep">,
): unknown {
  const type = (block as { type?: unknown } | null | undefined)?.type;
  if (type === "image" || type === "audio") {
    return mapJsonStrings(block, { ...options, kept: bytesField(block, "data") });
  }
  if (type !== "resource") return mapJsonStrings(block, options);
  const fields = mapJsonStrings(block, { ...options, kept: "resource" }) as Record<string, unknown>;
  const resource = (block as { resource?: unknown }).resource;
  const inner = mapJsonStrings(resource, {
    ...options,
    kept: bytesField(resource, "blob"),
    depth: 2,
  });
  if (inner === resource) return fields;
  return setOwn(fields === block ? { ...fields } : fields, "resource", inner);
}

/**
 * `name` when the value's field of that name is a string (base64 bytes), else `undefined`: a
 * `data` or `blob` that is no string is no bytes, and a server can hide any text in it.
 */
export function bytesField(value: unknown, name: string): string | undefined {
  const field = (value as Record<string, unknown> | null | undefined)?.[name];
  return typeof field === "string" ? name : undefined;
}

/** Sets an own field, even `__proto__` (a JSON name, which an assignment would take as the prototype). */
function setOwn(record: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(record, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return record;
}
