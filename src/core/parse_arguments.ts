import { ToolError } from "./tool_error.ts";

/** Limits on the arguments a model may send in one call. */
export interface ArgumentLimits {
  /** Most characters of argument JSON text. Default: 1 000 000. */
  maxChars?: number;
  /** Deepest nesting of objects and arrays. Default: 64. */
  maxDepth?: number;
}

const DEFAULT_MAX_CHARS = 1_000_000;
const DEFAULT_MAX_DEPTH = 64;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Turns a model's arguments (JSON text or an already parsed value) into a plain object.
 *
 * Empty text and `undefined` mean no arguments (`{}`). Throws a `ToolError` with code
 * `invalid_arguments` for text that is not JSON, JSON that is not an object, text over the size
 * limit (for an object the host passes: its JSON length, counted by a walk that stops at the
 * limit), nesting deeper than the limit, the keys `__proto__`, `constructor` and `prototype`, and
 * numbers that are not finite (`1e309`).
 *
 * @param args The arguments as the model sent them.
 * @param limits Size and depth limits.
 * @returns The arguments as a plain object.
 */
export function parseArguments(
  args: unknown,
  limits: ArgumentLimits = {},
): Record<string, unknown> {
  const maxChars = limits.maxChars ?? DEFAULT_MAX_CHARS;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  let value = args;
  if (value === undefined) return {};
  if (typeof value === "string") {
    if (value.length > maxChars) {
      throw invalid(
        `The arguments are ${value.length} characters long, over the limit of ${maxChars}; send a smaller JSON object`,
      );
    }
    if (value.trim() === "") return {};
    try {
      value = JSON.parse(value);
    } catch (error) {
      const detail = error instanceof Error ? `: ${error.message}` : "";
      throw invalid(
        `The arguments are not valid JSON${detail}; send a JSON object such as {"key": "value"}`,
      );
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(
      `The arguments must be a JSON object, not ${
        describe(value)
      }; send an object such as {"key": "value"}`,
    );
  }
  // An object the host parsed itself gets the same size limit as text: its JSON length is
  // counted during the walk, which stops as soon as the limit is passed.
  const size = typeof args === "string" ? undefined : { chars: 0, max: maxChars };
  checkValue(value, "", 1, maxDepth, size);
  return value as Record<string, unknown>;
}

interface SizeBudget {
  chars: number;
  readonly max: number;
}

function count(size: SizeBudget | undefined, chars: number): void {
  if (size === undefined) return;
  size.chars += chars;
  if (size.chars > size.max) {
    throw invalid(
      `The arguments are at least ${size.chars} characters long as JSON, over the limit of ${size.max}; send a smaller JSON object`,
    );
  }
}

function checkValue(
  value: unknown,
  path: string,
  depth: number,
  maxDepth: number,
  size?: SizeBudget,
): void {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw invalid(`The number at ${where(path)} is out of range; use a finite number`);
    }
    count(size, String(value).length + 1);
    return;
  }
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw invalid(`The value at ${where(path)} is not JSON (${typeof value})`);
    }
    count(size, typeof value === "string" ? value.length + 3 : 6);
    return;
  }
  count(size, 2);
  if (depth > maxDepth) {
    throw invalid(
      `The arguments are nested deeper than ${maxDepth} levels; send a flatter JSON object`,
    );
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      checkValue(value[i], `${path}[${i}]`, depth + 1, maxDepth, size);
    }
    return;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (FORBIDDEN_KEYS.has(key)) {
      throw invalid(`The key "${key}" at ${where(path)} is not allowed; rename or remove it`);
    }
    count(size, key.length + 3);
    checkValue(
      (value as Record<string, unknown>)[key],
      path ? `${path}.${key}` : key,
      depth + 1,
      maxDepth,
      size,
    );
  }
  if (Object.hasOwn(value, "__proto__")) {
    throw invalid(`The key "__proto__" at ${where(path)} is not allowed; rename or remove it`);
  }
}

function where(path: string): string {
  return path === "" ? "the top level" : `"${path}"`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function invalid(message: string): ToolError {
  return new ToolError("invalid_arguments", message);
}
