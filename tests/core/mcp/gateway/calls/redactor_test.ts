import { assertEquals, assertStrictEquals } from "@std/assert";
import { Redactor } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";
import { ToolError } from "../../../../../mod.ts";

Deno.test("Redactor removes header values and bearer tokens, not short or common words", () => {
  const redactor = new Redactor({
    url: "https://x.example/mcp",
    headers: { Authorization: "Bearer sk-live-123456", "X-Team": "ops" },
  });
  assertEquals(
    redactor.text("denied for Bearer sk-live-123456 (token sk-live-123456), team ops"),
    "denied for [redacted] (token [redacted]), team ops",
  );
  const error = redactor.toolError(new ToolError("tool_error", "bad key sk-live-123456"));
  assertEquals((error as ToolError).message, "bad key [redacted]");
  assertEquals((error as ToolError).code, "tool_error");
});

Deno.test("Redactor removes a stdio server's env values named as secrets", () => {
  const redactor = new Redactor({ command: "server", env: { API_KEY: "abcdef-secret-42" } });
  assertEquals(redactor.text("key abcdef-secret-42 rejected"), "key [redacted] rejected");
  const names = [
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "APIKEY",
    "DB_PASSWORD",
    "client-secret",
    "ADO_PAT",
  ];
  for (const name of names) {
    const named = new Redactor({ command: "server", env: { [name]: "s3cr3t-value-1" } });
    assertEquals(named.text("v=s3cr3t-value-1"), "v=[redacted]", name);
  }
});

Deno.test("Redactor leaves a stdio server's plain configuration values in its results", () => {
  const redactor = new Redactor({
    command: "server",
    env: {
      NODE_ENV: "production",
      GIT_REPO_PATH: "/home/me/projects/app",
      KEYBOARD_LAYOUT: "dvorak-intl",
    },
  });
  assertEquals(redactor.secrets(), []);
  const echo = { content: [{ type: "text" as const, text: "deploy to production now" }] };
  assertStrictEquals(redactor.result(echo), echo);
  assertEquals(
    redactor.text("cloned into /home/me/projects/app (dvorak-intl)"),
    "cloned into /home/me/projects/app (dvorak-intl)",
  );
});

Deno.test("Redactor removes each word of a secret env value, as of a header", () => {
  const redactor = new Redactor({
    command: "server",
    env: { AUTH_HEADER: "Bearer tok-0123456789" },
    secretEnv: ["AUTH_HEADER"],
  });
  assertEquals(redactor.text("got tok-0123456789"), "got [redacted]");
});

Deno.test("Redactor removes a stdio server's URL with a password, whatever its name", () => {
  const redactor = new Redactor({
    command: "server",
    env: { DATABASE_URL: "postgres://me:hunter2@db/app", HOMEPAGE: "https://example.com/docs" },
  });
  assertEquals(
    redactor.text("postgres://me:hunter2@db/app, see https://example.com/docs"),
    "[redacted], see https://example.com/docs",
  );
});

Deno.test("Redactor removes a stdio server's env values listed in secretEnv", () => {
  const redactor = new Redactor({
    command: "server",
    env: { LICENSE: "ACME-4417-9921-XQ", NODE_ENV: "production" },
    secretEnv: ["LICENSE"],
  });
  assertEquals(
    redactor.text("licensed ACME-4417-9921-XQ in production"),
    "licensed [redacted] in production",
  );
});

Deno.test("Redactor removes a stdio server's args listed in secretArgs, the value after = alone too, and no other arg", () => {
  const redactor = new Redactor({
    command: "server",
    args: ["--verbose", "--password=hunter2-0123456789", "/srv/data/projects"],
    secretArgs: [1],
  });
  assertEquals(
    redactor.text("argv: --verbose --password=hunter2-0123456789 /srv/data/projects"),
    "argv: --verbose [redacted] /srv/data/projects",
  );
  assertEquals(redactor.text("login with hunter2-0123456789"), "login with [redacted]");
});

Deno.test("Redactor.secrets() gives the same list on every use when nothing changes, and reads changing tokens anew", () => {
  const none = new Redactor({ url: "https://x.example/mcp" });
  assertEquals(none.secrets(), []);
  assertStrictEquals(none.secrets(), none.secrets());
  let tokens: string[] = [];
  const redactor = new Redactor(
    { url: "https://x.example/mcp", headers: { "X-Api-Key": "key-0123456789" } },
    () => tokens,
  );
  assertStrictEquals(redactor.secrets(), redactor.secrets());
  assertEquals(redactor.secrets(), ["key-0123456789"]);
  tokens = ["at-short", "rt-a-longer-refresh-token", "tiny"];
  assertEquals(redactor.secrets(), ["rt-a-longer-refresh-token", "key-0123456789", "at-short"]);
});

Deno.test("Redactor.result() redacts a result with the tokens of the moment, and passes one without them on as it is", () => {
  let token = "at-first-0123456789";
  const redactor = new Redactor({ url: "https://x.example/mcp" }, () => [token]);
  const echo = (text: string) => ({
    content: [{ type: "text" as const, text }],
    structuredContent: { token: text },
  });
  assertEquals(redactor.result(echo(`t=${token}`)), {
    content: [{ type: "text", text: "t=[redacted]" }],
    structuredContent: { token: "t=[redacted]" },
  });
  const old = echo("t=at-first-0123456789");
  token = "at-second-0123456789";
  assertStrictEquals(redactor.result(old), old, "an expired token is no longer looked for");
  assertEquals(redactor.result(echo(token)).structuredContent, { token: "[redacted]" });
  const none = new Redactor({ url: "https://x.example/mcp" });
  const plain = echo("at-second-0123456789");
  assertStrictEquals(none.result(plain), plain);
});

Deno.test("Redactor removes a secret as a server echoes it inside JSON text or a URL", () => {
  const secret = 'pa"ss\\w/rd é 42';
  const redactor = new Redactor({ command: "server", env: { DB_PASSWORD: secret } });
  const echoed = [
    JSON.stringify({ password: secret }),
    JSON.stringify({ password: secret }).replaceAll("/", "\\/"),
    `https://db.example/login?password=${encodeURIComponent(secret)}`,
  ];
  for (const text of echoed) {
    const redacted = redactor.text(text);
    assertEquals(redacted.includes("[redacted]"), true, redacted);
    for (const part of ['pa\\"ss', "pa%22ss", "w/rd", "w\\/rd"]) {
      assertEquals(redacted.includes(part), false, `${part} left in ${redacted}`);
    }
  }
});

Deno.test("Redactor removes a Basic header's user and password as a server that decoded them echoes them", () => {
  const redactor = new Redactor({
    url: "https://x.example/mcp",
    headers: { Authorization: `Basic ${btoa("deploy-bot:correct horse battery")}` },
  });
  assertEquals(
    redactor.text("denied: deploy-bot:correct horse battery; password correct horse battery"),
    "denied: [redacted]; password [redacted]",
  );
  // Not base64 of text, or no Basic scheme: only the header's own words, as before.
  const other = new Redactor({
    url: "https://x.example/mcp",
    headers: { Authorization: "Basic %%%not-base64%%%", "X-Key": "Basic-ish value" },
  });
  assertEquals(other.text("Basic %%%not-base64%%%"), "[redacted]");
});
