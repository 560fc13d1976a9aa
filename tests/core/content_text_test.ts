import { assert, assertEquals } from "@std/assert";
import { base64Bytes, boundContent, contentText } from "../../src/core/content_text.ts";
import type { ToolContent } from "../../src/core/tool_output.ts";

Deno.test("contentText() joins text blocks and puts a short placeholder for each other block", () => {
  const text = contentText([
    { type: "text", text: "first" },
    { type: "image", data: "A".repeat(16384), mimeType: "image/png" },
    { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "file:///a.txt", text: "inline" } },
    {
      type: "resource",
      resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" },
    },
    { type: "resource_link", uri: "file:///c", name: "c", mimeType: "text/plain" },
  ]);
  assertEquals(
    text,
    "first\n\n[image: image/png, 12 KB]\n\n[audio: audio/wav, 3 B]\n\ninline\n\n" +
      "[resource: file:///b.bin, application/octet-stream, 3 B]\n\n" +
      "[resource link: file:///c (c), text/plain]",
  );
});

Deno.test("contentText() uses structuredContent only when there is no content at all", () => {
  assertEquals(contentText([], { n: 1 }), '{"n":1}');
  assertEquals(contentText([{ type: "text", text: "t" }], { n: 1 }), "t");
  // An image with a structured result that repeats its bytes: no base64 in the text.
  const data = "B".repeat(400_000);
  const text = contentText([{ type: "image", data, mimeType: "image/png" }], { data });
  assertEquals(text, "[image: image/png, 293 KB]");
  assert(text.length < 200);
});

Deno.test("base64Bytes() counts decoded bytes without decoding", () => {
  assertEquals(base64Bytes(btoa("hello")), 5);
  assertEquals(base64Bytes(btoa("hell")), 4);
  assertEquals(base64Bytes(btoa("hel")), 3);
  assertEquals(base64Bytes(""), 0);
  assertEquals(base64Bytes(undefined), 0);
});

Deno.test("boundContent() returns blocks within the bounds unchanged", () => {
  const content: ToolContent[] = [
    { type: "text", text: "abc" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
  ];
  assertEquals(boundContent(content, { maxTextChars: 10, maxMediaBytes: 10 }) === content, true);
  assertEquals(boundContent(content, {}) === content, true);
});

Deno.test("boundContent() shares the text budget between blocks, keeping head and tail", () => {
  const bounded = boundContent([
    { type: "text", text: "a".repeat(300) },
    { type: "resource", resource: { uri: "file:///r", text: "b".repeat(100) } },
  ], { maxTextChars: 100 });
  const first = bounded[0] as { text: string };
  const second = bounded[1] as { resource: { text: string; uri: string } };
  assert(first.text.startsWith("a".repeat(13)) && first.text.includes("truncated"));
  assert(
    second.resource.text.startsWith("b".repeat(6)) && second.resource.text.includes("truncated"),
  );
  assertEquals(second.resource.uri, "file:///r");
});

Deno.test("boundContent() replaces media past the byte budget with a text block saying so", () => {
  const bounded = boundContent([
    { type: "image", data: btoa("x".repeat(600)), mimeType: "image/png", annotations: { a: 1 } },
    { type: "image", data: btoa("y".repeat(600)), mimeType: "image/jpeg" },
  ], { maxMediaBytes: 1000 });
  assertEquals(bounded[0].type, "image");
  assertEquals(bounded[0].annotations, { a: 1 });
  assertEquals(bounded[1], {
    type: "text",
    text: "[image: image/jpeg, 600 B, left out: media over the 1000 B limit of a result]",
  });
});
