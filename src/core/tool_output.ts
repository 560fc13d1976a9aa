import { errorMessage, ToolError } from "./tool_error.ts";

/** A text block of a tool result (MCP `TextContent`). */
export interface ToolTextContent {
  /** Always `"text"`. */
  type: "text";
  /** The text. */
  text: string;
  /** Extra MCP fields (`annotations`, `_meta`), passed through. */
  [field: string]: unknown;
}

/** An image or audio block of a tool result (MCP `ImageContent` / `AudioContent`). */
export interface ToolMediaContent {
  /** `"image"` or `"audio"`. */
  type: "image" | "audio";
  /** The bytes, base64-encoded. */
  data: string;
  /** The MIME type, such as `image/png`. */
  mimeType: string;
  /** Extra MCP fields (`annotations`, `_meta`), passed through. */
  [field: string]: unknown;
}

/** A resource embedded in a tool result (MCP `EmbeddedResource`). */
export interface ToolResourceContent {
  /** Always `"resource"`. */
  type: "resource";
  /** The resource: `text` or base64 `blob`. */
  resource: {
    /** The resource's URI. */
    uri: string;
    /** The MIME type, when known. */
    mimeType?: string;
    /** The contents of a text resource. */
    text?: string;
    /** The base64 contents of a binary resource. */
    blob?: string;
    /** Extra MCP fields, passed through. */
    [field: string]: unknown;
  };
  /** Extra MCP fields (`annotations`, `_meta`), passed through. */
  [field: string]: unknown;
}

/** A link to a resource, not its contents (MCP `ResourceLink`). */
export interface ToolResourceLinkContent {
  /** Always `"resource_link"`. */
  type: "resource_link";
  /** The resource's URI. */
  uri: string;
  /** The resource's name. */
  name: string;
  /** The MIME type, when known. */
  mimeType?: string;
  /** Extra MCP fields (`title`, `description`, `size`, `annotations`, `_meta`), passed through. */
  [field: string]: unknown;
}

/** One content block of a tool result, as MCP `CallToolResult.content` carries them. */
export type ToolContent =
  | ToolTextContent
  | ToolMediaContent
  | ToolResourceContent
  | ToolResourceLinkContent;

/** A tool result with MCP content blocks, made by {@linkcode toolOutput}. */
export interface ToolOutput {
  /** The content blocks, in order. */
  readonly content: readonly ToolContent[];
  /** A JSON object matching the tool's output schema, when it declares one. */
  readonly structuredContent?: Record<string, unknown>;
  /** Whether the tool reports a failure (the router's code is `tool_error`). */
  readonly isError?: boolean;
}

const BRAND: unique symbol = Symbol.for("toolroute.ToolOutput");

/**
 * Marks a value as a tool result with content blocks, so the router passes its blocks through
 * (`ToolCallResult#content`) instead of encoding it as JSON text. A tool returns it from `run`;
 * MCP sources return it for every upstream result.
 *
 * @example Return an image from a function tool
 * ```ts
 * import { defineTool, ToolRouter, toolOutput } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const chart = defineTool({
 *   name: "chart",
 *   description: "Draws a chart",
 *   input: z.object({}),
 *   run: () => toolOutput({ content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] }),
 * });
 * const tools = await new ToolRouter({ functions: [chart] }).expose({ functions: ["chart"] });
 * const result = await tools.call("chart", {});
 * assertEquals(result.text, "[image: image/png, 8 B]");
 * assertEquals(result.content[0].type, "image");
 * ```
 *
 * @param output The content blocks, structured content and error flag.
 * @returns The same fields, marked as a tool output.
 */
export function toolOutput(output: ToolOutput): ToolOutput {
  if (output === null || typeof output !== "object" || !Array.isArray(output.content)) {
    throw new TypeError('Cannot make a tool output: pass an object with a "content" array');
  }
  const marked: { -readonly [K in keyof ToolOutput]: ToolOutput[K] } = { content: output.content };
  if (output.structuredContent !== undefined) marked.structuredContent = output.structuredContent;
  if (output.isError === true) marked.isError = true;
  Object.defineProperty(marked, BRAND, MARK);
  return marked;
}

/** The brand's property: not enumerable, so a copy or JSON of an output does not carry it. */
const MARK: PropertyDescriptor = Object.freeze({ value: true });

/**
 * Returns whether a value was made by {@linkcode toolOutput} (also across module copies).
 *
 * @param value Any value.
 * @returns `true` for a tool output.
 */
export function isToolOutput(value: unknown): value is ToolOutput {
  return value !== null && typeof value === "object" &&
    (value as Record<symbol, unknown>)[BRAND] === true;
}

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
    const reason = errorMessage(error);
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
 * import { truncateMiddle } from "./tool_output.ts";
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
