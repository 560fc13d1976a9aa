import { type JsonObjectSchema, type RoutedTool, serverOf } from "./tool_source.ts";
import { isOpenAIStrictSchema } from "./strict_schema.ts";

/** A function tool in the OpenAI Responses API format. */
export interface OpenAIResponsesFunction {
  /** Always `"function"`. */
  type: "function";
  /** The name the model calls: the tool set's name. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the arguments. */
  parameters: JsonObjectSchema;
  /** `true` exactly when the schema satisfies strict mode's rules. */
  strict: boolean;
  /** With OpenAI's tool search: the definition is loaded only when a search finds it. */
  defer_loading?: true;
}

/** The functions of one MCP server or service, grouped for OpenAI's tool search. */
export interface OpenAIResponsesNamespace {
  /** Always `"namespace"`. */
  type: "namespace";
  /** The server or service id. */
  name: string;
  /** What the model sees of the namespace before a search loads its functions. */
  description: string;
  /** The server's deferred functions. */
  tools: OpenAIResponsesFunction[];
}

/** OpenAI's hosted tool search tool (Responses API). */
export interface OpenAIResponsesToolSearch {
  /** Always `"tool_search"`. */
  type: "tool_search";
}

/** One entry of the `tools` of an OpenAI Responses request. */
export type OpenAIResponsesTool =
  | OpenAIResponsesFunction
  | OpenAIResponsesNamespace
  | OpenAIResponsesToolSearch;

/** Describes a tool as a Responses API function. */
export function toOpenAIResponsesFunction(tool: RoutedTool): OpenAIResponsesFunction {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    strict: isOpenAIStrictSchema(tool.inputSchema),
  };
}

/**
 * A deferred set for OpenAI's tool search: the tool search tool, the listed tools as they are,
 * then the deferred tools with `defer_loading: true`, those of an MCP server or service in one
 * namespace per server (its id; the functions keep the set's names, so a call's `name` is the
 * one `ToolSet#call` takes), the others (built-ins, function tools) on their own.
 *
 * @param listed The tools listed from the start.
 * @param deferred The other tools the request may use.
 * @returns The Responses `tools`.
 */
export function toOpenAIResponsesSearch(
  listed: readonly RoutedTool[],
  deferred: readonly RoutedTool[],
): OpenAIResponsesTool[] {
  const namespaces = new Map<string, OpenAIResponsesFunction[]>();
  const loose: OpenAIResponsesFunction[] = [];
  for (const tool of deferred) {
    const entry = { ...toOpenAIResponsesFunction(tool), defer_loading: true as const };
    const server = serverOf(tool);
    if (server === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(server)) loose.push(entry);
    else namespaces.set(server, [...namespaces.get(server) ?? [], entry]);
  }
  const used = new Set([...listed, ...deferred].map((tool) => tool.name));
  return [
    { type: "tool_search" },
    ...listed.map(toOpenAIResponsesFunction),
    ...[...namespaces].map(([name, tools]): OpenAIResponsesNamespace => ({
      type: "namespace",
      // A namespace named like a tool would make a call's name ambiguous: qualify it.
      name: used.has(name) ? `${name}_server` : name,
      description: namespaceDescription(name, tools),
      tools,
    })),
    ...loose,
  ];
}

/** The server's id and its tools' names, within about 500 characters. */
function namespaceDescription(server: string, tools: OpenAIResponsesFunction[]): string {
  let names = "";
  for (const [index, tool] of tools.entries()) {
    const next = names === "" ? tool.name : `${names}, ${tool.name}`;
    if (next.length > 500) {
      names += `, and ${tools.length - index} more`;
      break;
    }
    names = next;
  }
  return `Tools of the MCP server "${server}": ${names}`;
}
