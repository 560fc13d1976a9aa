import { assert, assertEquals, assertStrictEquals, assertThrows } from "@std/assert";
import { redactResult } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import { escapeRemoteResult } from "../../../../../src/core/mcp/gateway/tools/remote_text.ts";
import { type McpResultParts, toolOutputOf } from "../../../../../src/core/mcp/mcp_call.ts";
import { ToolError } from "../../../../../src/core/tool_error.ts";
import { MAX_REMOTE_DEPTH } from "../../../../../src/core/mcp/remote_depth.ts";

// A hostile MCP server against the one walker that redacts a connection's secrets and escapes
// remote text (`json_strings.ts`): it echoes the secret where the walker keeps a value as bytes.

const TOKEN = "sk-live-0123456789abcdef";
const SECRETS = [`Bearer ${TOKEN}`, TOKEN];
const ESC = "\u001b[31m";

function viaGateway(value: unknown) {
  return toolOutputOf(value, "echo", { redact: (parts) => redactResult(parts, SECRETS) });
}

Deno.test("attack: a resource whose blob is an object, not base64, carries a secret past redaction", () => {
  // Valid as far as the gateway checks (a string `uri` and a string `text`); `blob` is no bytes.
  const value = {
    content: [{
      type: "resource",
      resource: { uri: "file:///a", text: "fine", blob: { note: TOKEN, [TOKEN]: 1 } },
    }],
  };
  const output = viaGateway(value);
  // The attack ran: the block reached the output with its odd blob.
  assertEquals(output.content.length, 1);
  assertEquals(output.content[0].type, "resource");
  // Contained: the secret is in no field, the blob object's names included.
  const seen = JSON.stringify(output);
  assert(!seen.includes(TOKEN), seen);
  assert(seen.includes("[redacted]"), seen);
});

Deno.test("attack: an image's data or a blob that is no string is escaped like any remote text", () => {
  const result = {
    content: [
      { type: "resource", resource: { uri: "file:///a", text: "t", blob: [`${ESC}red`] } },
      { type: "image", mimeType: "image/png", data: { note: `${ESC}x` } },
    ],
  };
  const escaped = escapeRemoteResult(result);
  assert(escaped !== result, "nothing was escaped");
  const seen = JSON.stringify(escaped);
  assert(!seen.includes("\\u001b"), seen);
});

Deno.test("a base64 blob and image data stay as they are: bytes, not text", () => {
  const result = {
    content: [
      { type: "resource", resource: { uri: `file:///${TOKEN}`, blob: "AAAA" } },
      { type: "image", mimeType: "image/png", data: "AAAA", _meta: { k: TOKEN } },
    ],
  };
  const redacted = redactResult(result as unknown as McpResultParts, SECRETS);
  assertEquals(redacted.content, [
    { type: "resource", resource: { uri: "file:///[redacted]", blob: "AAAA" } },
    { type: "image", mimeType: "image/png", data: "AAAA", _meta: { k: "[redacted]" } },
  ] as never);
});

Deno.test("attack: a secret in names, _meta, annotations, nested lists and a __proto__ name of every block kind is redacted", () => {
  const deep = (n: number): unknown => n === 0 ? { [`k-${TOKEN}`]: TOKEN } : [deep(n - 1)];
  const content = [
    {
      type: "text",
      text: "ok",
      // As JSON.parse reads it: `__proto__` is an own name.
      _meta: JSON.parse(`{"${TOKEN}": {"__proto__": "${TOKEN}"}}`),
      extra: deep(40),
    },
    { type: "resource_link", uri: "u", name: "n", annotations: { audience: [TOKEN] } },
    { type: "resource", resource: { uri: "u", text: `Bearer ${TOKEN}` }, _meta: deep(10) },
    { type: "audio", mimeType: "audio/wav", data: "AAAA", [`x-${TOKEN}`]: true },
    { type: "text", text: "plain" },
  ];
  const result = { content, structuredContent: { list: [deep(20)], __proto__: null } };
  const seen = JSON.stringify(viaGateway(result));
  assert(!seen.includes(TOKEN), seen);
  // Copy on change: the untouched block is the same object.
  const redacted = redactResult(result as unknown as McpResultParts, SECRETS);
  assertStrictEquals(redacted.content[4], content[4]);
  // A `__proto__` name stays an own field, not the copy's prototype.
  const meta =
    (redacted.content[0] as unknown as { _meta: Record<string, Record<string, unknown>> })._meta;
  assertEquals(Object.getPrototypeOf(meta["[redacted]"]), Object.prototype);
  assertEquals(Object.hasOwn(meta["[redacted]"], "__proto__"), true);
});

Deno.test("attack: a secret nested past the depth bound withholds the result instead of passing it", () => {
  let nested: unknown = TOKEN;
  for (let i = 0; i < MAX_REMOTE_DEPTH + 5; i++) nested = { a: nested };
  const value = { content: [{ type: "text", text: "x", _meta: nested }] };
  assertThrows(() => viaGateway(value), ToolError, "too deeply");
  const inResource = {
    content: [{ type: "resource", resource: { uri: "u", text: "t", x: nested } }],
  };
  assertThrows(() => viaGateway(inResource), ToolError, "too deeply");
});
