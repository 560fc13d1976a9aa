import { type ToolContent, truncateMiddle } from "./tool_output.ts";

/** Bounds of a result's content blocks. */
export interface ContentLimits {
  /** Most characters of all text blocks together; longer texts keep head and tail. */
  maxTextChars?: number;
  /** Most decoded bytes of all media (images, audio, resource blobs) together. */
  maxMediaBytes?: number;
}

/**
 * The text a model reads for content blocks: text blocks and text resources as they are, one
 * short placeholder per other block (`[image: image/png, 4 KB]`), separated by blank lines.
 * `structuredContent` is used (as JSON) only when there is no content at all, so media payloads
 * never reach the text.
 *
 * @param structuredContent The structured result, when any.
 */
export function contentText(
  content: readonly ToolContent[],
  structuredContent?: Record<string, unknown>,
): string {
  if (content.length === 0) {
    return structuredContent === undefined ? "" : JSON.stringify(structuredContent) ?? "";
  }
  // One block (nearly every result): its text, without an array and a join.
  return content.length === 1 ? describeBlock(content[0]) : content.map(describeBlock).join("\n\n");
}

/**
 * Bounds content blocks: text blocks share `maxTextChars` (each keeps head and tail in proportion
 * to its length), and media past `maxMediaBytes` is replaced by a text block saying what was
 * left out. Blocks within the bounds are returned as they are.
 *
 * @returns The bounded blocks (the same array when nothing was cut).
 */
export function boundContent(
  content: readonly ToolContent[],
  limits: ContentLimits,
): readonly ToolContent[] {
  const { maxTextChars, maxMediaBytes } = limits;
  let totalText = 0;
  let totalMedia = 0;
  for (const block of content) {
    totalText += textOf(block)?.length ?? 0;
    totalMedia += mediaBytes(block);
  }
  const cutText = maxTextChars !== undefined && totalText > maxTextChars;
  const cutMedia = maxMediaBytes !== undefined && totalMedia > maxMediaBytes;
  if (!cutText && !cutMedia) return content;
  let media = 0;
  return content.map((block): ToolContent => {
    const bytes = mediaBytes(block);
    if (bytes > 0 && cutMedia) {
      media += bytes;
      if (media > maxMediaBytes!) {
        return {
          type: "text",
          text: `${describeBlock(block).slice(0, -1)}, left out: media over the ${
            formatBytes(maxMediaBytes!)
          } limit of a result]`,
        };
      }
    }
    const text = textOf(block);
    if (text === undefined || !cutText) return block;
    const share = Math.floor(maxTextChars! * text.length / totalText);
    if (text.length <= share) return block;
    // The marker counts against the share, so the blocks' texts together stay within the budget.
    const cut = truncateMiddle(text, Math.max(Math.floor(share / 2), share - MARKER_CHARS));
    if (block.type === "text") return { ...block, text: cut };
    const resource = (block as { resource: Record<string, unknown> }).resource;
    return { ...block, resource: { ...resource, text: cut } } as ToolContent;
  });
}

/** Room for `truncateMiddle`'s marker (`\n[... N characters truncated ...]\n`). */
const MARKER_CHARS = 48;

function textOf(block: ToolContent): string | undefined {
  if (block.type === "text") return typeof block.text === "string" ? block.text : undefined;
  if (block.type === "resource") {
    const text = block.resource?.text;
    return typeof text === "string" ? text : undefined;
  }
  return undefined;
}

function mediaBytes(block: ToolContent): number {
  if (block.type === "image" || block.type === "audio") return base64Bytes(block.data);
  if (block.type === "resource") return base64Bytes(block.resource?.blob);
  return 0;
}

/** One block as the model's text shows it: a text block's text, a placeholder for media. */
export function describeBlock(block: ToolContent): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
    case "resource": {
      const { uri, mimeType, text, blob } = block.resource ?? {};
      if (typeof text === "string") return text;
      return `[resource: ${uri}${mimeType ? `, ${mimeType}` : ""}${
        typeof blob === "string" ? `, ${formatBytes(base64Bytes(blob))}` : ""
      }]`;
    }
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}${
        block.mimeType ? `, ${block.mimeType}` : ""
      }]`;
    default:
      return `[${String((block as { type: unknown }).type).slice(0, 40)} content]`;
  }
}

/**
 * The decoded size of base64 text, without decoding it.
 *
 * @returns The bytes it encodes (0 for a non-string).
 */
export function base64Bytes(base64: unknown): number {
  if (typeof base64 !== "string" || base64.length === 0) return 0;
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(base64.length * 3 / 4) - padding);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Math.round(bytes / 1024 / 102.4) / 10} MB`;
}
