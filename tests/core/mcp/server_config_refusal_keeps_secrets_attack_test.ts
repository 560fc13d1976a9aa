// A server config with one bad field beside a credential (a header that is a number beside the
// bearer token, an OAuth grant misspelled beside the client secret) is refused at registration.
// The refusal names the field, and the host logs it: it must not carry the credential, as the
// gateway's other errors never carry a configured header value.
import { assert, assertFalse, assertStringIncludes, assertThrows } from "@std/assert";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import type { McpServerConfig } from "../../../src/core/mcp/mod.ts";

const URL_OK = "http://127.0.0.1:1/mcp";
const BEARER = "Bearer sk-live-hostile-0123456789";
const CLIENT_SECRET = "oauth-client-secret-0123456789";

Deno.test("a refused server config names the bad field but never echoes a header value or the OAuth client secret", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ url: URL_OK, headers: { Authorization: BEARER, "X-Count": 1 } }, '"headers"'],
    [{ url: URL_OK, headers: [BEARER] }, '"headers"'],
    [{ url: URL_OK, oauth: { clientId: "", clientSecret: CLIENT_SECRET } }, '"oauth"'],
    [
      { url: URL_OK, oauth: { clientId: "app", clientSecret: CLIENT_SECRET, grant: "password" } },
      '"oauth"',
    ],
  ];
  let refused = 0;
  for (const [config, field] of cases) {
    const gateway = new McpGateway();
    for (
      const register of [
        () => new McpGateway({ servers: { s: config as unknown as McpServerConfig } }),
        () => gateway.addUserServer("bob", "s", config as unknown as McpServerConfig),
      ]
    ) {
      const error = assertThrows(register, TypeError);
      refused++;
      assertStringIncludes(error.message, field);
      assertFalse(error.message.includes("sk-live-hostile"), error.message);
      assertFalse(error.message.includes("oauth-client-secret"), error.message);
    }
  }
  // The attack ran: every config was refused, at both ways in.
  assert(refused === cases.length * 2);
  // The place of a bad header is still named, and the non-secret fields still say what came.
  const header = assertThrows(
    () => new McpGateway({ servers: { s: { url: URL_OK, headers: { "X-Count": 1 } } as never } }),
    TypeError,
  );
  assertStringIncludes(header.message, '(at "X-Count")');
  const timeout = assertThrows(
    () => new McpGateway({ servers: { s: { url: URL_OK, connectTimeoutMs: 0 } } }),
    TypeError,
  );
  assertStringIncludes(timeout.message, "received 0");
});
