// A hostile serve client (a page behind DNS rebinding, a local program) sends Host and Origin
// values that a URL parser reads in surprising ways: userinfo, a backslash, a trailing dot,
// IPv6 forms, numeric IPv4 forms, other schemes. serve's guards parse them with URL.parse: what
// names another host, or nothing, is refused; loopback in another spelling is loopback.
import { assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";

let runs = 0;
const probe = defineTool({
  name: "probe",
  description: "Counts its runs",
  input: z.object({}),
  run: () => String(++runs),
});
const router = new ToolRouter({ functions: [probe] });

function call(url: string, headers: Record<string, string>): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "probe", arguments: {} },
    }),
  });
}

Deno.test("serve's Host and Origin guards refuse userinfo, backslash, trailing-dot and foreign-scheme tricks, and run nothing for them", async () => {
  const handler = mcpHttpHandler({
    tools: await router.expose({ functions: ["probe"] }),
    stateless: true,
    jsonResponse: true,
  });
  const url = "http://127.0.0.1:8787/mcp";
  const refused: Record<string, string>[] = [
    { host: "localhost:8787@evil.example" },
    { host: "evil.example\\@localhost" },
    { host: "evil.example#@localhost" },
    { host: "localhost." },
    { host: "localhost.evil.example" },
    { host: "127.0.0.1.nip.io" },
    { host: "[::ffff:127.0.0.1]" },
    { host: "[::1" },
    { host: "" },
    { host: "local host" },
    { origin: "http://127.0.0.1@evil.example" },
    { origin: "http://localhost.:8787" },
    { origin: "http://evil.example\\@localhost" },
    { origin: "file:///etc/passwd" },
    { origin: "blob:http://localhost/x" },
    { origin: "javascript://localhost/%0aalert(1)" },
    { origin: "ws://localhost" },
    { origin: "http://[::ffff:127.0.0.1]" },
    { origin: "localhost" },
    { origin: "" },
  ];
  for (const headers of refused) {
    const response = await handler(call(url, headers));
    assertEquals(response.status, 403, JSON.stringify(headers));
    await response.body?.cancel();
  }
  // The guard ran before anything else: no call reached the tool.
  assertEquals(runs, 0);
  // Loopback in other spellings is loopback (the URL parser's own forms), and a call then runs.
  const accepted: Record<string, string>[] = [
    { host: "LOCALHOST:8787" },
    { host: "127.1:8787" },
    { host: "0x7f.0.0.1" },
    { host: "[0:0:0:0:0:0:0:1]:8787" },
    { host: "localhost", origin: "HTTP://LocalHost:6274" },
    { origin: "https://[::1]:443" },
  ];
  for (const headers of accepted) {
    const response = await handler(call(url, headers));
    assertEquals(response.status, 200, JSON.stringify(headers));
    await response.body?.cancel();
  }
  assertEquals(runs, accepted.length);
  await handler.close();
});
