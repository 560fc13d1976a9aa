import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { Redactor } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import type { McpServerConfig } from "../../../../../src/core/mcp/mcp_server_config.ts";

const stdio = (env: Record<string, string>): McpServerConfig =>
  ({ command: "srv", env }) as McpServerConfig;
const http = (headers: Record<string, string>): McpServerConfig =>
  ({ url: "https://example.test/mcp", headers }) as McpServerConfig;

Deno.test("attack: a password form-encoded (space as +, ! as %21) is redacted", () => {
  const password = "open sesame!";
  const echoed = new URLSearchParams({ pw: password }).toString();
  assert(
    !echoed.includes(encodeURIComponent(password)),
    "the attack uses a form the redactor lacks",
  );
  const out = new Redactor(stdio({ DB_PASSWORD: password })).text(`GET /login?${echoed}`);
  assertEquals(out, "GET /login?pw=[redacted]");
});

Deno.test("attack: a password with non-ASCII echoed by Python json.dumps (\\u00e9) is redacted", () => {
  const password = "mot-de-passé-1";
  const echoed = JSON.stringify(password).slice(1, -1).replace(
    /[\u007f-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
  assert(echoed.includes("\\u00e9"));
  assertEquals(
    new Redactor(stdio({ DB_PASSWORD: password })).text(`{"password": "${echoed}"}`),
    `{"password": "[redacted]"}`,
  );
});

Deno.test("attack: a password with & or < echoed by Go's encoding/json (\\u0026) is redacted", () => {
  const password = "fish&chips<3";
  const echoed = JSON.stringify(password).slice(1, -1).replace(
    /[<>&]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
  assertEquals(echoed, "fish\\u0026chips\\u003c3");
  assertEquals(
    new Redactor(stdio({ DB_PASSWORD: password })).text(`{"password":"${echoed}"}`),
    `{"password":"[redacted]"}`,
  );
});

Deno.test("attack: unchanged OAuth tokens are not expanded again on every use", () => {
  const tokens = ["a".repeat(64) + "/+=", "b".repeat(64)];
  let reads = 0;
  const r = new Redactor(http({}), () => (reads++, [...tokens]));
  const first = r.secrets();
  assertStrictEquals(r.secrets(), first, "the same tokens gave a freshly expanded list");
  assertEquals(reads, 2);
  tokens.push("c".repeat(64));
  assert(r.secrets().includes("c".repeat(64)));
});
