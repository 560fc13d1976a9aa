import { describeBlock } from "./content_text.ts";
import type { ToolCallResult } from "./tool_call_types.ts";
import type { ToolContent } from "./tool_output.ts";

/** A content block of an Anthropic `tool_result`. */
export type AnthropicToolResultBlock =
  | { type: "text"; text: string }
  | {
    type: "image";
    // The union Anthropic's API declares, not `string`: a result typed with it is then assignable
    // to the SDK's own `ToolResultBlockParam`.
    source: {
      type: "base64";
      media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
      data: string;
    };
  }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string } };

/** An Anthropic Messages API `tool_result` block, for the next user message. */
export interface AnthropicToolResult {
  /** Always `"tool_result"`. */
  type: "tool_result";
  /** The `id` of the model's `tool_use` block. */
  tool_use_id: string;
  /** The result's blocks: text, images and PDF documents. */
  content: AnthropicToolResultBlock[];
  /** Present (`true`) when the call failed. */
  is_error?: boolean;
}

/** A content part of an OpenAI Responses API `function_call_output`. */
export type OpenAIToolOutputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string }
  | { type: "input_file"; filename: string; file_data: string };

/** An OpenAI Responses API `function_call_output` item, for the next input. */
export interface OpenAIToolOutput {
  /** Always `"function_call_output"`. */
  type: "function_call_output";
  /** The `call_id` of the model's `function_call`. */
  call_id: string;
  /** The result's parts: text, images and files. */
  output: OpenAIToolOutputPart[];
}

/** Image types both vendors accept inline. */
type InlineImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

function isInlineImage(mimeType: string): mimeType is InlineImageType {
  return IMAGE_TYPES.includes(mimeType);
}

/**
 * Converts a call result into an Anthropic `tool_result` block: text blocks as text, images
 * (JPEG, PNG, GIF, WebP) as base64 images, PDFs as documents; other blocks (audio, links, other
 * files) as the short placeholder the model's text uses.
 *
 * @example Pass a result with an image back to Claude
 * ```ts
 * import { toAnthropicToolResult, type ToolCallResult } from "@toolroute/toolroute";
 * import { assertEquals } from "@std/assert";
 *
 * const result: ToolCallResult = {
 *   text: "[image: image/png, 8 B]",
 *   isError: false,
 *   tool: "chart",
 *   content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
 * };
 * assertEquals(toAnthropicToolResult(result, "toolu_1").content, [
 *   { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
 * ]);
 * ```
 *
 * @param result The call result.
 * @param toolUseId The `id` of the model's `tool_use` block.
 * @returns The `tool_result` block.
 */
export function toAnthropicToolResult(
  result: ToolCallResult,
  toolUseId: string,
): AnthropicToolResult {
  const content = blocksOf(result).map((block): AnthropicToolResultBlock => {
    const media = mediaOf(block);
    if (media !== undefined && isInlineImage(media.mimeType)) {
      return {
        type: "image",
        source: { type: "base64", media_type: media.mimeType, data: media.data },
      };
    }
    if (media !== undefined && media.mimeType === "application/pdf") {
      return {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: media.data },
      };
    }
    return { type: "text", text: describeBlock(block) };
  });
  const out: AnthropicToolResult = { type: "tool_result", tool_use_id: toolUseId, content };
  if (result.isError) out.is_error = true;
  return out;
}

/**
 * Converts a call result into an OpenAI Responses API `function_call_output` item: text blocks
 * as `input_text`, images as `input_image` data URLs, PDFs as `input_file`; other blocks as the
 * short placeholder the model's text uses. (Chat Completions tool messages take text only: use
 * `result.text` there.)
 *
 * @example Pass a result with an image back to an OpenAI model
 * ```ts
 * import { toOpenAIToolOutput, type ToolCallResult } from "@toolroute/toolroute";
 * import { assertEquals } from "@std/assert";
 *
 * const result: ToolCallResult = {
 *   text: "[image: image/png, 8 B]",
 *   isError: false,
 *   tool: "chart",
 *   content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
 * };
 * assertEquals(toOpenAIToolOutput(result, "call_1").output, [
 *   { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
 * ]);
 * ```
 *
 * @param result The call result.
 * @param callId The `call_id` of the model's `function_call`.
 * @returns The `function_call_output` item.
 */
export function toOpenAIToolOutput(result: ToolCallResult, callId: string): OpenAIToolOutput {
  const output = blocksOf(result).map((block): OpenAIToolOutputPart => {
    const media = mediaOf(block);
    if (media !== undefined && isInlineImage(media.mimeType)) {
      return { type: "input_image", image_url: `data:${media.mimeType};base64,${media.data}` };
    }
    if (media !== undefined && media.mimeType === "application/pdf") {
      return {
        type: "input_file",
        filename: media.name,
        file_data: `data:application/pdf;base64,${media.data}`,
      };
    }
    return { type: "input_text", text: describeBlock(block) };
  });
  return { type: "function_call_output", call_id: callId, output };
}

/** The result's blocks; an old-style result without `content` is its text. */
function blocksOf(result: ToolCallResult): readonly ToolContent[] {
  return Array.isArray(result.content) && result.content.length > 0
    ? result.content
    : [{ type: "text", text: result.text }];
}

/** The base64 bytes and type of an image, audio or blob resource block. */
function mediaOf(
  block: ToolContent,
): { mimeType: string; data: string; name: string } | undefined {
  if ((block.type === "image" || block.type === "audio") && typeof block.data === "string") {
    return { mimeType: String(block.mimeType), data: block.data, name: `${block.type}` };
  }
  if (block.type === "resource" && typeof block.resource?.blob === "string") {
    const uri = String(block.resource.uri ?? "");
    return {
      mimeType: String(block.resource.mimeType ?? ""),
      data: block.resource.blob,
      name: uri.slice(uri.lastIndexOf("/") + 1) || "file",
    };
  }
  return undefined;
}
