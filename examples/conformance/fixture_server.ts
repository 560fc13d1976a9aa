/**
 * The MCP conformance suite's tool fixtures (server mode) as a third-party stdio MCP server, built
 * on the SDK's low-level `Server`, so that `toolroute serve` is checked the way users run it: the
 * suite talks to `serve`, and `serve` routes every call through its gateway to this server. Images,
 * audio, embedded resources, structured results, logging, progress and elicitation all cross the
 * gateway, and so do the suite's resources, prompts and completion. `test_sampling` fails because toolroute does not relay sampling (deprecated by the
 * 2026-07-28 protocol revision), see docs/conformance.md.
 *
 * Usage: `deno run --no-prompt examples/conformance/fixture_server.ts` (needs no permission).
 *
 * @module
 */
import {
  type CallToolResult,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "../../src/core/mcp/mcp_sdk.ts";
import { DenoStdioServerTransport } from "../../src/deno/mcp/stdio_server_transport.ts";

/** A 1×1 red PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A silent 8-sample WAV. */
const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const noArgs = { type: "object", properties: {}, additionalProperties: false };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const TOOLS = [
  { name: "test_simple_text", description: "Returns simple text content", inputSchema: noArgs },
  { name: "test_image_content", description: "Returns an image", inputSchema: noArgs },
  { name: "test_audio_content", description: "Returns audio", inputSchema: noArgs },
  { name: "test_embedded_resource", description: "Returns a resource", inputSchema: noArgs },
  {
    name: "test_multiple_content_types",
    description: "Returns text, an image and a resource",
    inputSchema: noArgs,
  },
  { name: "test_tool_with_logging", description: "Logs while it runs", inputSchema: noArgs },
  { name: "test_error_handling", description: "Always returns an error", inputSchema: noArgs },
  { name: "test_tool_with_progress", description: "Reports progress", inputSchema: noArgs },
  {
    name: "test_sampling",
    description: "Asks the client's model",
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
    },
  },
  {
    name: "test_elicitation",
    description: "Asks the user",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    },
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Asks with defaults",
    inputSchema: noArgs,
  },
  { name: "test_elicitation_sep1330_enums", description: "Asks with enums", inputSchema: noArgs },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
  },
  {
    name: "test_structured_content",
    description: "Returns plain text with a structured copy",
    inputSchema: noArgs,
    outputSchema: {
      type: "object",
      properties: { lines: { type: "array", items: { type: "string" } } },
      required: ["lines"],
    },
  },
];

const DEFAULTS_FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", default: true },
  },
};

const ENUMS_FORM = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const server = new Server({ name: "conformance-fixtures", version: "1.0.0" }, {
  capabilities: { tools: {}, logging: {}, resources: {}, prompts: {}, completions: {} },
});
server.setRequestHandler("tools/list", () => ({ tools: TOOLS }) as ListToolsResult);
server.setRequestHandler("tools/call", async (request, extra): Promise<CallToolResult> => {
  const args = (request.params.arguments ?? {}) as Record<string, unknown>;
  const log = (data: string) => server.sendLoggingMessage({ level: "info", data });
  switch (request.params.name) {
    case "test_simple_text":
      return text("This is a simple text response for testing.");
    case "test_image_content":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return {
        content: [{
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        }],
      };
    case "test_multiple_content_types":
      return {
        content: [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "resource",
            resource: {
              uri: "test://mixed-content-resource",
              mimeType: "application/json",
              text: '{"test":"data","value":123}',
            },
          },
        ],
      };
    case "test_tool_with_logging":
      await log("Tool execution started");
      await sleep(50);
      await log("Tool processing data");
      await sleep(50);
      await log("Tool execution completed");
      return text("Logging test completed");
    case "test_error_handling":
      return { isError: true, ...text("This tool intentionally returns an error for testing") };
    case "test_tool_with_progress": {
      const token = request.params._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined) {
          await extra.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress, total: 100 },
          });
        }
        if (progress < 100) await sleep(50);
      }
      return text("Progress test completed");
    }
    case "test_sampling":
      try {
        const answer = await server.createMessage({
          messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
          maxTokens: 100,
        });
        return text(`LLM response: ${JSON.stringify(answer.content)}`);
      } catch (error) {
        return { isError: true, ...text(`Sampling is not available: ${(error as Error).message}`) };
      }
    case "test_elicitation":
    case "test_elicitation_sep1034_defaults":
    case "test_elicitation_sep1330_enums": {
      const name = request.params.name;
      try {
        const answer = await server.elicitInput({
          message: name === "test_elicitation" ? String(args.message) : "Please answer",
          requestedSchema: (name === "test_elicitation"
            ? {
              type: "object",
              properties: {
                username: { type: "string", description: "User's response" },
                email: { type: "string", description: "User's email address" },
              },
              required: ["username", "email"],
            }
            : name === "test_elicitation_sep1034_defaults"
            ? DEFAULTS_FORM
            : ENUMS_FORM) as never,
        });
        return name === "test_elicitation"
          ? text(
            `User response: action=${answer.action}, content=${JSON.stringify(answer.content)}`,
          )
          : text(
            `Elicitation completed: action=${answer.action}, content=${
              JSON.stringify(answer.content)
            }`,
          );
      } catch (error) {
        return { isError: true, ...text(`Elicitation failed: ${(error as Error).message}`) };
      }
    }
    case "json_schema_2020_12_tool":
      return text(JSON.stringify(args));
    case "test_structured_content":
      return {
        content: [{ type: "text", text: "first line\nsecond line" }],
        structuredContent: { lines: ["first line", "second line"] },
      };
    default:
      return { isError: true, ...text(`Unknown tool "${request.params.name}"`) };
  }
});

// The suite's resources, prompts and completion: `serve` passes them on from this server.
const TEXT = { uri: "test://static-text", name: "static-text", mimeType: "text/plain" };
const BINARY = { uri: "test://static-binary", name: "static-binary", mimeType: "image/png" };
const TEMPLATE = {
  uriTemplate: "test://template/{id}/data",
  name: "template",
  mimeType: "text/plain",
};
server.setRequestHandler("resources/list", () => ({ resources: [TEXT, BINARY] }));
server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [TEMPLATE] }));
server.setRequestHandler("resources/read", (request) => {
  const { uri } = request.params;
  if (uri === TEXT.uri) {
    return {
      contents: [{
        uri,
        mimeType: "text/plain",
        text: "This is the content of the static text resource.",
      }],
    };
  }
  if (uri === BINARY.uri) return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
  if (id !== undefined) {
    return {
      contents: [{
        uri,
        mimeType: "application/json",
        text: JSON.stringify({ id, templateTest: true }),
      }],
    };
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, {
    uri,
  });
});
const PROMPTS = [
  { name: "test_simple_prompt", description: "A simple prompt" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with arguments",
    arguments: [{ name: "arg1", required: true }, { name: "arg2", required: true }],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt with an embedded resource",
    arguments: [{ name: "resourceUri", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];
const say = (value: string) => ({
  role: "user" as const,
  content: { type: "text" as const, text: value },
});
server.setRequestHandler("prompts/list", () => ({ prompts: PROMPTS }));
server.setRequestHandler("prompts/get", (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_prompt":
      return { messages: [say("This is a simple prompt for testing.")] };
    case "test_prompt_with_arguments":
      return { messages: [say(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)] };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          {
            role: "user" as const,
            content: {
              type: "resource" as const,
              resource: {
                uri: String(args.resourceUri),
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            },
          },
          say("Please process the embedded resource above."),
        ],
      };
    case "test_prompt_with_image":
      return {
        messages: [
          {
            role: "user" as const,
            content: { type: "image" as const, data: PNG, mimeType: "image/png" },
          },
          say("Please analyze the image above."),
        ],
      };
    default:
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt "${request.params.name}"`,
      );
  }
});
server.setRequestHandler("completion/complete", (request) => {
  const value = request.params.argument.value;
  const values = ["paris", "park", "party"].filter((word) => word.startsWith(value));
  return { completion: { values, total: values.length, hasMore: false } };
});

await server.connect(new DenoStdioServerTransport());
