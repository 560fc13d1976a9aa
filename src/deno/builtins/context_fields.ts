import { isAbsolute, normalize, relative } from "@std/path";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Validates an absolute path field and normalizes it (no trailing slash).
 *
 * @returns The normalized path.
 */
export function absolutePath(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw mustBe(`"${field}" must be an absolute path`, value);
  }
  if (value.includes("\0")) throw contextError(`"${field}" contains a NUL byte`);
  if (!isAbsolute(value)) {
    throw contextError(`"${field}" must be an absolute path, received "${value}"`);
  }
  const normalized = normalize(value);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

/**
 * Validates a protected path and makes it relative to the workspace. A single name written as
 * `./name` stays anchored (`./name`); a bare name is protected at any depth.
 *
 * @param value The path, relative to the workspace or absolute inside it.
 * @param options The normalized `workspace`, and the `field` name for the message.
 * @returns The path relative to the workspace.
 */
export function protectedPath(
  value: string,
  options: { workspace: string; field: string },
): string {
  const { workspace, field } = options;
  if (value.length === 0 || value.includes("\0")) {
    throw contextError(`"${field}" must be a non-empty path without NUL bytes`);
  }
  const rel = relative(workspace, isAbsolute(value) ? normalize(value) : `${workspace}/${value}`);
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) {
    throw contextError(`"${field}" must name a path inside the workspace, received "${value}"`);
  }
  // "./name" names that one entry at the top of the workspace; a bare "name" (such as ".git")
  // is protected at any depth. A path with a slash is always anchored.
  const anchored = value.startsWith("./") && !value.split("/").includes("..") && !rel.includes("/");
  return anchored ? `./${rel}` : rel;
}

/**
 * Validates an object of the context (the context itself, or one of its object fields): a plain
 * object whose fields are all known.
 *
 * @param options The `field` name for the message (absent: the context itself), the `known`
 *   field names, and the `shape` a message shows (`an object such as { … }`).
 * @returns The object's fields.
 */
export function knownFields(
  value: unknown,
  options: { field?: string; known: readonly string[]; shape: string },
): Record<string, unknown> {
  const { field, known, shape } = options;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw mustBe(`${field === undefined ? "pass" : `"${field}" must be`} ${shape}`, value);
  }
  const extra = Object.keys(value).find((key) => !known.includes(key));
  if (extra !== undefined) {
    throw contextError(
      `unknown field "${field === undefined ? "" : `${field}.`}${extra}", expected ${
        known.slice(0, -1).join(", ")
      } or ${known.at(-1)}`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Validates an optional array of strings, checks each item with `each` (given the item's field,
 * such as `env[0]`), and drops repeats.
 *
 * @param options The `field` name for the message, and the `fallback` when the value is absent.
 * @returns The checked items, frozen.
 */
export function stringList(
  value: unknown,
  options: {
    field: string;
    fallback: readonly string[];
    each?: (item: string, field: string) => string;
  },
): readonly string[] {
  const { field, fallback, each = (item) => item } = options;
  if (value !== undefined && (!Array.isArray(value) || value.some((i) => typeof i !== "string"))) {
    throw mustBe(`"${field}" must be an array of strings`, value);
  }
  const items = (value ?? fallback) as readonly string[];
  return Object.freeze([...new Set(items.map((item, i) => each(item, `${field}[${i}]`)))]);
}

/**
 * Validates an environment variable name.
 */
export function envName(value: string, field: string): string {
  if (!ENV_NAME.test(value)) {
    throw contextError(
      `"${field}" must be an environment variable name such as "PATH", received "${value}"`,
    );
  }
  return value;
}

/**
 * Validates an optional positive integer limit.
 *
 * @param options The `field` name for the message, and the `fallback` when the value is absent.
 */
export function limit(value: unknown, options: { field: string; fallback: number }): number {
  const { field, fallback } = options;
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `Cannot use built-in context: "${field}" must be a positive integer, received ${
        describe(value)
      }`,
    );
  }
  return value;
}

/** A context field that is not what `text` says it must be: `text, received <value>`. */
export function mustBe(text: string, value: unknown): TypeError {
  return contextError(`${text}, received ${describe(value)}`);
}

function contextError(message: string): TypeError {
  return new TypeError(`Cannot use built-in context: ${message}`);
}

/**
 * Describes a value for an error message without echoing objects.
 *
 * @param value Any value.
 * @returns A short description.
 */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : String(value);
}
