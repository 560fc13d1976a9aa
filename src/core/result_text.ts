import { ToolError } from "./tool_error.ts";

/**
 * Turns a tool's return value into the text the model reads.
 *
 * A string is used as it is, `undefined` becomes `""`, anything else is JSON-encoded compactly.
 *
 * @param value What the tool returned.
 */
export function toResultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text !== undefined || typeof value === "function" || typeof value === "symbol") {
    return text ?? "";
  }
  try {
    text = JSON.stringify(value, (_key, item) => typeof item === "bigint" ? item.toString() : item);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      "tool_error",
      `The tool returned a value that cannot be encoded as JSON: ${reason}`,
    );
  }
  return text ?? "";
}

/**
 * Cuts text longer than `maxChars`, keeping its head and tail with a marker between them.
 *
 * @example Keep head and tail
 * ```ts
 * import { truncateMiddle } from "./result_text.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(truncateMiddle("x".repeat(10), 100), "x".repeat(10));
 * assertEquals(truncateMiddle("a".repeat(100) + "b".repeat(100), 120).includes("truncated"), true);
 * ```
 *
 * @param maxChars The most characters to keep (the marker is extra).
 * @returns The text, or its head and tail with `[... N characters truncated ...]` between.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[... ${cut} characters truncated ...]\n${
    tail > 0 ? text.slice(-tail) : ""
  }`;
}
