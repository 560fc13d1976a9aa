import { assertThrows } from "@std/assert";
import { checkAllowedHost, checkServerConfig } from "../../../src/core/mcp/mcp_server_config.ts";

Deno.test("checkAllowedHost() matches host names, host:port and *.suffix patterns", () => {
  const allowed = ["api.example.com", "127.0.0.1:8080", "*.corp.example"];
  checkAllowedHost(new URL("https://API.example.com/mcp"), allowed);
  checkAllowedHost(new URL("http://127.0.0.1:8080/mcp"), allowed);
  checkAllowedHost(new URL("https://tools.corp.example/mcp"), allowed);
  checkAllowedHost(new URL("https://anything.org/"), undefined);
  assertThrows(() => checkAllowedHost(new URL("http://127.0.0.1:9/"), allowed), TypeError);
  assertThrows(() => checkAllowedHost(new URL("https://corp.example.evil/"), allowed), TypeError);
  assertThrows(() => checkAllowedHost(new URL("https://evilcorp.example/"), allowed), TypeError);
});

Deno.test("checkServerConfig() names what is wrong with a config", () => {
  assertThrows(() => checkServerConfig("", { url: "http://x" }, {}), TypeError, "non-empty");
  assertThrows(
    () => checkServerConfig("s", {} as { url: string }, {}),
    TypeError,
    '"url" (HTTP) or a "command"',
  );
  assertThrows(
    () => checkServerConfig("s", { url: "not a url" }, {}),
    TypeError,
    "valid URL",
  );
  assertThrows(
    () => checkServerConfig("s", { url: "http://x", transport: "ws" as "http" }, {}),
    TypeError,
    '"transport" must be',
  );
  assertThrows(
    () => checkServerConfig("s", { url: "http://x", headers: { a: 1 as unknown as string } }, {}),
    TypeError,
    "headers",
  );
  assertThrows(() => checkServerConfig("s", { command: "" }, {}), TypeError, "command");
});

Deno.test("checkServerConfig() accepts an oauth client and refuses a malformed one", () => {
  checkServerConfig("crm", {
    url: "https://crm.example.com/mcp",
    oauth: { clientId: "svc", grant: "client_credentials" },
  }, {});
  for (
    const oauth of [null, {}, { clientId: "" }, { clientId: "svc", grant: "password" }] as never[]
  ) {
    assertThrows(
      () => checkServerConfig("crm", { url: "https://crm.example.com/mcp", oauth }, {}),
      TypeError,
      '"oauth" must be',
    );
  }
});

Deno.test("checkServerConfig() takes a server's own connectTimeoutMs and refuses one that is not a number of at least 1 ms", () => {
  checkServerConfig("slow", { command: "npx", connectTimeoutMs: 180_000 }, {});
  for (const bad of [0, -5, Infinity, "30000"]) {
    assertThrows(
      () =>
        checkServerConfig(
          "slow",
          { url: "https://a.example/mcp", connectTimeoutMs: bad as number },
          {},
        ),
      TypeError,
      '"connectTimeoutMs" must be a number of milliseconds of at least 1',
    );
  }
});
