import { isOpenAIStrictSchema } from "./strict_schema.ts";
import type { JsonObjectSchema, RoutedTool } from "./tool_source.ts";

/** A tool in the OpenAI function-calling format. */
export interface OpenAITool {
  /** Always `"function"`. */
  type: "function";
  /** The function. */
  function: {
    /** The name the model calls. */
    name: string;
    /** What the tool does. */
    description: string;
    /** The JSON Schema of the arguments. */
    parameters: JsonObjectSchema;
    /** `true` exactly when the schema satisfies strict mode's rules (Structured Outputs). */
    strict?: boolean;
  };
}

/** A tool in the Anthropic Messages API format. */
export interface AnthropicTool {
  /** The name the model calls. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the arguments. */
  input_schema: JsonObjectSchema;
  /** With `toAnthropic({ native: true })`: the tool is loaded only once Anthropic's search finds it. */
  defer_loading?: true;
}

/** Anthropic's server-side BM25 tool search tool, as `toAnthropic({ native: true })` lists it. */
export interface AnthropicToolSearchTool {
  /** The tool's type and version. */
  type: "tool_search_tool_bm25_20251119";
  /** The tool's name. */
  name: "tool_search_tool_bm25";
}

/** A tool in the MCP `tools/list` format. */
export interface McpToolDescription {
  /** The name the client calls. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the arguments. */
  inputSchema: JsonObjectSchema;
  /** The JSON Schema of structured results, when declared. */
  outputSchema?: JsonObjectSchema;
  /** Tool annotations, when known. */
  annotations?: Record<string, unknown>;
  /** A display name for people, when known. */
  title?: string;
  /** Icons for people's clients, when known. */
  icons?: Record<string, unknown>[];
  /** The tool's `_meta` (MCP Apps' `_meta.ui` included), when it has one. */
  _meta?: Record<string, unknown>;
}

/** Describes a tool in the OpenAI function format. */
export function toOpenAITool(tool: RoutedTool): OpenAITool {
  const out: OpenAITool = {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
  if (isOpenAIStrictSchema(tool.inputSchema)) out.function.strict = true;
  return out;
}

/** Describes a tool in the Anthropic format. */
export function toAnthropicTool(tool: RoutedTool): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/** Describes a tool in the MCP format. */
export function toMcpTool(tool: RoutedTool): McpToolDescription {
  const out: McpToolDescription = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.icons !== undefined) out.icons = [...tool.icons];
  if (tool.meta !== undefined) out._meta = tool.meta;
  return out;
}
