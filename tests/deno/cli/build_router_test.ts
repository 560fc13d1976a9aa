import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "@std/assert";
import type { ToolCallEvent } from "../../../src/core/tool_call_types.ts";
import { buildRouter, checkUser, describeMissing } from "../../../src/deno/cli/build_router.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { baseConfig } from "../../_helpers/serve_http_in_process.ts";
import { ToolSetServer } from "../../../src/core/mcp/mod.ts";
import { Client } from "../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";

async function tempWorkspace(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "toolroute_build_" });
  await Deno.writeTextFile(`${path}/hello.txt`, "hello\n");
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("buildRouter() exposes every built-in of the context when the config lists none", async () => {
  await using ws = await tempWorkspace();
  await using files = await buildRouter(baseConfig(ws.path));
  const fileTools = ["apply_patch", "edit", "glob", "grep", "read_file", "write_file"];
  assertEquals((await files.expose()).names, fileTools);
  await using withBash = await buildRouter(
    baseConfig(ws.path, { context: { workspace: ws.path, bash: { sandbox: "none" } } }),
  );
  assertEquals((await withBash.expose()).names, [...fileTools, "bash"].sort());
});

Deno.test("buildRouter() builds a user's tool set once without MCP servers or a policy, per request otherwise", async () => {
  await using ws = await tempWorkspace();
  await using plain = await buildRouter(baseConfig(ws.path, {
    users: [{ id: "alice", tokenVariable: "T_ALICE", mcpServers: {} }],
  }));
  const first = await plain.expose();
  assertEquals(await plain.expose(), first); // the same tool set, not rebuilt
  assertEquals((await plain.expose()) === first, true);
  const alice = await plain.expose("alice");
  assertEquals(alice === first, false); // one per user
  assertEquals(alice.userId, "alice");
  assertEquals((await plain.expose("alice")) === alice, true);
  assertEquals(
    JSON.parse((await first.call("read_file", { path: "hello.txt" })).text).content,
    "hello\n",
  );
  await using withPolicy = await buildRouter(baseConfig(ws.path, { policy: { deny: ["edit"] } }));
  assertEquals((await withPolicy.expose()) === (await withPolicy.expose()), false);
});

Deno.test("buildRouter() serves no built-in for a config that did not ask for them (an mcp.json)", async () => {
  await using ws = await tempWorkspace();
  const upstream = await startMcpTestServer();
  try {
    await using served = await buildRouter(
      baseConfig(ws.path, { builtins: false, mcpServers: { up: { url: upstream.url } } }),
    );
    const tools = await served.expose();
    assertEquals(tools.names.includes("read_file") || tools.names.includes("write_file"), false);
    assertEquals(tools.names.includes("echo"), true);
    assertEquals(tools.missing, []);
    assertEquals(
      (await served.router.invoke("read_file", { path: "hello.txt" })).includes("Unknown tool"),
      true,
    );
  } finally {
    await upstream.close();
  }
});

Deno.test("buildRouter() exposes exactly the config's names and reports the rest as missing", async () => {
  await using ws = await tempWorkspace();
  await using served = await buildRouter(baseConfig(ws.path, {
    expose: { builtins: ["read_file", "bash"], functions: ["ghost"], mcpServers: ["nowhere"] },
  }));
  const tools = await served.expose();
  assertEquals(tools.names, ["read_file"]);
  assertEquals(
    describeMissing(tools.missing).sort(),
    [
      'not exposed: builtins "bash": ' + tools.missing.find((m) => m.name === "bash")?.reason,
      'not exposed: functions "ghost": ' + tools.missing.find((m) => m.name === "ghost")?.reason,
      'not exposed: mcpServers "nowhere": ' +
      tools.missing.find((m) => m.name === "nowhere")?.reason,
    ].sort(),
  );
});

Deno.test("buildRouter() passes call events, the call deadline and the result limit to the router", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws.path}/big.txt`, "x".repeat(5000));
  const events: ToolCallEvent[] = [];
  await using served = await buildRouter(
    baseConfig(ws.path, { maxResultChars: 300, callTimeoutMs: 5000 }),
    { onEvent: (event) => events.push(event) },
  );
  const tools = await served.expose("alice");
  const result = await tools.call("read_file", { path: "big.txt" });
  assertEquals(result.isError, false);
  // Head, tail and the note naming the handle: 300 characters together.
  assertStringIncludes(result.text, "characters cut");
  assertEquals(result.text.length <= 300, true, `${result.text.length} characters`);
  assertEquals(events.length, 1);
  assertEquals(events[0].tool, "read_file");
  assertEquals(events[0].source, "builtin");
  assertEquals(events[0].isError, false);
});

Deno.test("buildRouter() gives a user the global servers plus their own, never another user's", async () => {
  const shared = await startMcpTestServer();
  const mailbox = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("inbox", { description: "Alice's inbox" }, () => ({
        content: [{ type: "text", text: "3 messages" }],
      }));
    },
  });
  try {
    await using ws = await tempWorkspace();
    await using served = await buildRouter(baseConfig(ws.path, {
      expose: { builtins: [] },
      mcpServers: { shared: { url: shared.url } },
      users: [
        { tokenVariable: "TOKEN_A", id: "alice", mcpServers: { mail: { url: mailbox.url } } },
        { tokenVariable: "TOKEN_B", id: "bob", mcpServers: {} },
      ],
    }));
    const alice = await served.expose("alice");
    assertEquals(alice.names.includes("inbox"), true);
    assertEquals(alice.names.includes("echo"), true);
    assertEquals(await alice.invoke("inbox", {}), "3 messages");
    const bob = await served.expose("bob");
    assertEquals(bob.names.includes("inbox"), false);
    assertEquals(bob.names.includes("echo"), true);
    const nobody = await served.expose();
    assertEquals(nobody.names.includes("inbox"), false);
  } finally {
    await shared.close();
    await mailbox.close();
  }
});

Deno.test("buildRouter() throws a UsageError for a module that cannot be loaded", async () => {
  await using ws = await tempWorkspace();
  await assertRejects(
    () => buildRouter(baseConfig(ws.path, { modules: [`${ws.path}/missing_module.ts`] })),
    UsageError,
    "missing_module.ts",
  );
});

Deno.test("checkUser() returns a configured id, undefined without one, and names the known users", () => {
  const users = [
    { tokenVariable: "A", id: "alice", mcpServers: {} },
    { tokenVariable: "B", id: "bob", mcpServers: {} },
  ];
  const withUsers = baseConfig("/srv/ws", { users });
  assertEquals(checkUser(withUsers, "bob"), "bob");
  assertEquals(checkUser(withUsers, undefined), undefined);
  assertThrows(
    () => checkUser(withUsers, "carol"),
    UsageError,
    `Unknown user "carol"; the config's users are: "alice", "bob"`,
  );
  assertThrows(
    () => checkUser(baseConfig("/srv/ws"), "carol"),
    UsageError,
    `Unknown user "carol"; the config's users are: none`,
  );
});

Deno.test("describeMissing() writes one line per missing name with its selection and reason", () => {
  assertEquals(describeMissing([]), []);
  const lines = describeMissing([
    { selection: "mcpServers", name: "github", reason: "the server is down" },
    { selection: "functions", name: "now", reason: "no such function" },
  ]);
  assertEquals(lines, [
    'not exposed: mcpServers "github": the server is down',
    'not exposed: functions "now": no such function',
  ]);
  assertStringIncludes(lines[0], "github");
});

Deno.test("buildRouter() applies the config's policy; served, an ask becomes the client's elicitation", async () => {
  await using ws = await tempWorkspace();
  await using served = await buildRouter(baseConfig(ws.path, {
    policy: { deny: ["apply_patch", "read_file(.env)"], ask: ["write_file"] },
  }));
  const toolSet = await served.expose();
  assertEquals(toolSet.names, ["edit", "glob", "grep", "read_file", "write_file"]);
  assertStringIncludes(describeMissing(toolSet.missing).join("\n"), "policy");
  assertEquals((await toolSet.call("read_file", { path: ".env" })).code, "permission_denied");
  const server = new ToolSetServer((request) => served.expose(undefined, request.signal));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "1" }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request: { params: { message: string } }) => {
    asked.push(request.params.message);
    return { action: "accept", content: { approve: true } };
  });
  await client.connect(clientSide);
  const result = await client.callTool({
    name: "write_file",
    arguments: { path: "note.txt", content: "approved\n" },
  });
  assertEquals(result.isError, undefined);
  assertStringIncludes(
    asked[0],
    'Allow the tool "write_file" to run with these arguments?\npath: note.txt\ncontent: approved\\n',
  );
  assertEquals(await Deno.readTextFile(`${ws.path}/note.txt`), "approved\n");
  await client.close();
  await server.close();
});
