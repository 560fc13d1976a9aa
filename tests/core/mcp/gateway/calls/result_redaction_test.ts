import { assert, assertEquals, assertStrictEquals, assertThrows } from "@std/assert";
import { redactResult, redactText } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import type { McpResultParts } from "../../../../../src/core/mcp/mcp_call.ts";
import { ToolError } from "../../../../../src/core/tool_error.ts";
import type { ToolContent } from "../../../../../src/core/tool_output.ts";

const TOKEN = "sk-live-0123456789abcdef";
const SECRETS = [`Bearer ${TOKEN}`, TOKEN];

/** Every kind of block, each holding the token where a server could echo it. */
function leakingBlocks(token: string, header = `Bearer ${token}`): ToolContent[] {
  return [
    { type: "text", text: `denied for ${header}`, _meta: { "x/auth": header } },
    {
      type: "resource",
      resource: { uri: `https://crm.example/?key=${token}`, mimeType: "text/plain", text: token },
    },
    {
      type: "resource",
      resource: { uri: `https://crm.example/${token}.bin`, blob: "AAAA" },
    },
    {
      type: "resource_link",
      uri: `https://crm.example/?key=${token}`,
      name: `key ${token}`,
      title: `Title ${token}`,
      description: `Made with ${token}`,
      annotations: { audience: ["user"], note: token },
    },
    { type: "image", data: "AAAA", mimeType: "image/png", _meta: { [token]: true } },
  ];
}

Deno.test("redactResult() replaces a secret in every text field of every kind of block, and keeps base64 payloads", () => {
  const result = { content: leakingBlocks(TOKEN), isError: false };
  const redacted = redactResult(result, SECRETS);
  // The whole header goes as one: `[redacted]`, not `Bearer [redacted]`.
  assertEquals(redacted, { content: leakingBlocks("[redacted]", "[redacted]"), isError: false });
  assert(!JSON.stringify(redacted).includes(TOKEN));
});

Deno.test("redactResult() keeps a base64 payload even when it reads like a secret", () => {
  // Base64 is bytes a model is shown as a placeholder; a replacement would only corrupt them.
  const data = "c2stbGl2ZS0wMTIzNDU2Nzg5YWJjZGVm";
  const image: ToolContent = { type: "image", data, mimeType: "image/png" };
  const blob: ToolContent = { type: "resource", resource: { uri: "file:///a.bin", blob: data } };
  const result = { content: [image, blob] };
  assertStrictEquals(redactResult(result, [data]), result);
});

Deno.test("redactResult() replaces secrets in structuredContent's strings and names, however deep", () => {
  const result: McpResultParts = {
    content: [],
    structuredContent: {
      echo: `Bearer ${TOKEN}`,
      rows: [{ [TOKEN]: 1, list: ["a", `x${TOKEN}y`, 5, null, true] }],
      count: 3,
    },
  };
  assertEquals(redactResult(result, SECRETS).structuredContent, {
    echo: "[redacted]",
    rows: [{ "[redacted]": 1, list: ["a", "x[redacted]y", 5, null, true] }],
    count: 3,
  });
});

Deno.test("redactResult() finds a secret that JSON escapes (quotes, backslashes) in structured content", () => {
  const secret = 'pa"ss\\word-42';
  const result: McpResultParts = { content: [], structuredContent: { value: `is ${secret}` } };
  assertEquals(redactResult(result, [secret]).structuredContent, { value: "is [redacted]" });
});

Deno.test("redactResult() passes a result without secrets on as it is: same object, same blocks", () => {
  const content = leakingBlocks("nothing-secret-here");
  const structuredContent = { rows: [{ name: "ada" }], n: 1 };
  const result = { content, structuredContent, isError: true };
  assertStrictEquals(redactResult(result, SECRETS), result);
  assertStrictEquals(redactResult(result, []), result);
  const empty = { content: [] };
  assertStrictEquals(redactResult(empty, SECRETS), empty);
});

Deno.test("redactResult() copies only the blocks that hold a secret", () => {
  const clean: ToolContent = { type: "text", text: "all fine" };
  const image: ToolContent = { type: "image", data: "AAAA", mimeType: "image/png" };
  const structuredContent = { ok: true };
  const result = {
    content: [clean, { type: "text", text: TOKEN } as ToolContent, image],
    structuredContent,
  };
  const redacted = redactResult(result, SECRETS);
  assertStrictEquals(redacted.content[0], clean);
  assertEquals(redacted.content[1], { type: "text", text: "[redacted]" });
  assertStrictEquals(redacted.content[2], image);
  assertStrictEquals(redacted.structuredContent, structuredContent);
  assertEquals((result.content[1] as { text: string }).text, TOKEN, "the original is unchanged");
});

Deno.test("redactResult() passes on a structure whose JSON only seems to hold a secret (digits of a number)", () => {
  const result = { content: [], structuredContent: { n: 12345678901 } };
  assertStrictEquals(redactResult(result, ["12345678"]), result);
});

Deno.test("redactResult() keeps a `__proto__` name as a field of the copy", () => {
  const structuredContent = JSON.parse(`{"__proto__": {"polluted": "${TOKEN}"}}`);
  const redacted = redactResult({ content: [], structuredContent }, SECRETS);
  const copy = redacted.structuredContent!;
  assertEquals(Object.getPrototypeOf(copy), Object.prototype);
  assertEquals(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, {
    polluted: "[redacted]",
  });
});

Deno.test("redactResult() passes on a deep structure without a secret, and refuses one with a secret too deep to walk", () => {
  const deep = (leaf: string) =>
    JSON.parse(`{"a":${"[".repeat(200_000)}"${leaf}"${"]".repeat(200_000)}}`);
  const clean = { content: [], structuredContent: deep("fine") };
  assertStrictEquals(redactResult(clean, SECRETS), clean);
  const error = assertThrows(
    () => redactResult({ content: [], structuredContent: deep(TOKEN) }, SECRETS),
    ToolError,
  );
  assertEquals(error.code, "tool_error");
  assert(!error.message.includes(TOKEN));
});

Deno.test("redactText() replaces every occurrence, longest secret first", () => {
  assertEquals(
    redactText(`Bearer ${TOKEN} and ${TOKEN} twice`, SECRETS),
    "[redacted] and [redacted] twice",
  );
  const text = "nothing here";
  assertStrictEquals(redactText(text, SECRETS), text);
});

Deno.test("a resource block whose resource is text, not an object, is redacted too", () => {
  for (const resource of [`key ${TOKEN}`, [`key ${TOKEN}`]]) {
    const block = { type: "resource", resource } as unknown as ToolContent;
    const out = redactResult({ content: [block] }, SECRETS);
    assert(!JSON.stringify(out).includes(TOKEN), JSON.stringify(out));
    assert(JSON.stringify(out).includes("[redacted]"), JSON.stringify(out));
  }
});
