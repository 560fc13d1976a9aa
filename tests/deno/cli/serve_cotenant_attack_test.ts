/**
 * Outside attacks on `serve --http` by a hostile MCP client that is a second user of the same
 * server (two bearer tokens): each attack is sent over real HTTP on 127.0.0.1, in the era it
 * aims at (a 2.x SDK client for 2025 sessions, raw 2026-07-28 requests for the session-less era),
 * and each checks both that it reached the code it aims at and that it was contained.
 *
 * @module
 */
import { assert, assertEquals, assertFalse, assertMatch } from "@std/assert";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import type { ToolrouteConfig } from "../../../src/deno/cli/toolroute_config.ts";
import { connectAs, startServeHttp } from "../../_helpers/serve_http_in_process.ts";
import { exists } from "../../_helpers/exists.ts";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const TOKENS = { [ALICE]: "alice", [BOB]: "bob" };

function startServe(
  extra: Partial<ToolrouteConfig> = {},
  options: { defer?: boolean } = {},
) {
  return startServeHttp({
    expose: { builtins: ["read_file", "write_file", "glob", "grep"] },
    ...extra,
  }, {
    tokens: TOKENS,
    defer: options.defer,
    files: { "hello.txt": "hello\n", "big.txt": "line of text\n".repeat(2000) },
    prefix: "toolroute_cotenant_",
  });
}

/** A 2.x SDK client in a 2025 session. */
/** One raw 2026-07-28 request (no initialize, no session); returns the HTTP status and body. */
async function modern(
  url: string,
  token: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // An SSE answer: its last data line holds the JSON-RPC message.
    const data = text.split("\n").filter((line) => line.startsWith("data: ")).at(-1);
    if (data !== undefined) body = JSON.parse(data.slice(6));
  }
  return { status: response.status, body };
}

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((c) => c.text).join("\n");
}

function namesOf(body: Record<string, unknown>): string[] {
  return (body.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

Deno.test("a second user's 2026-07-28 search_tools loads nothing for the first user, in either era, and finds nothing denied", async () => {
  await using serve = await startServe({ policy: { deny: ["write_file"] } }, { defer: true });
  const aliceLegacy = await connectAs(serve.url, ALICE);
  try {
    assertEquals((await aliceLegacy.listTools()).tools.map((t) => t.name), ["search_tools"]);
    // Bob searches in the session-less era for everything, the denied tool by name included.
    const found = await modern(serve.url, BOB, "tools/call", {
      name: "search_tools",
      arguments: { query: "write_file write a file glob grep read", limit: 10 },
    });
    const names = JSON.parse(textOf(found.body.result)).tools.map((t: { name: string }) => t.name);
    assert(names.length >= 2, `the search ran and found tools: ${names}`);
    assertFalse(names.includes("write_file"), "a denied tool is never found");
    // The search loaded them for Bob's session-less client: he lists and calls them.
    const bobList = await modern(serve.url, BOB, "tools/list");
    assertEquals(namesOf(bobList.body), ["search_tools", ...names]);
    // The denied tool stays out of reach by name as well.
    const denied = await modern(serve.url, BOB, "tools/call", {
      name: "write_file",
      arguments: { path: "pwned.txt", content: "x" },
    });
    assert((denied.body.result as { isError?: boolean }).isError);
    assertFalse(await exists(`${serve.workspace}/pwned.txt`));
    // Alice, in both eras, still lists only search_tools and cannot call what Bob loaded.
    assertEquals((await aliceLegacy.listTools()).tools.map((t) => t.name), ["search_tools"]);
    assertEquals(namesOf((await modern(serve.url, ALICE, "tools/list")).body), ["search_tools"]);
    const refused = await modern(serve.url, ALICE, "tools/call", {
      name: names[0],
      arguments: { path: "hello.txt", pattern: "*" },
    });
    assertMatch(textOf(refused.body.result), /Unknown tool/);
  } finally {
    await aliceLegacy.close();
  }
});

Deno.test("a second user cannot read the first user's cut result by its handle, in either era", async () => {
  await using serve = await startServe({ maxResultChars: 2000 });
  const alice = await connectAs(serve.url, ALICE);
  try {
    const cut = await alice.callTool({ name: "read_file", arguments: { path: "big.txt" } });
    const handle = textOf(cut).match(/"handle":"(res_\w+)"/)?.[1];
    assert(handle !== undefined, `the result was cut and kept: ${textOf(cut).slice(-300)}`);
    const own = await alice.callTool({ name: "read_result", arguments: { handle } });
    assertMatch(textOf(own), /line of text/, "the handle reads for its owner");
    // Bob cuts a result of his own first, so read_result is his to call.
    const bobCut = await modern(serve.url, BOB, "tools/call", {
      name: "read_file",
      arguments: { path: "big.txt" },
    });
    assertMatch(textOf(bobCut.body.result), /"handle":"res_/);
    const stolenModern = await modern(serve.url, BOB, "tools/call", {
      name: "read_result",
      arguments: { handle },
    });
    const modernResult = stolenModern.body.result as { isError?: boolean };
    assert(modernResult.isError, "Bob's read ran and was refused");
    assertMatch(textOf(modernResult), /No stored result has the handle/);
    assertFalse(/line of text/.test(textOf(modernResult)));
    const bobLegacy = await connectAs(serve.url, BOB);
    try {
      await bobLegacy.callTool({ name: "read_file", arguments: { path: "big.txt" } });
      const stolen = await bobLegacy.callTool({ name: "read_result", arguments: { handle } });
      assert(stolen.isError);
      assertMatch(textOf(stolen), /No stored result has the handle/);
    } finally {
      await bobLegacy.close();
    }
  } finally {
    await alice.close();
  }
});

Deno.test("one user exhausting a per-user limit through both eras leaves the other user's calls running", async () => {
  await using serve = await startServe({
    policy: { limits: [{ match: "read_file", max: 3, windowMs: 3_600_000 }] },
  });
  const alice = await connectAs(serve.url, ALICE);
  try {
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await alice.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
      outcomes.push(result.isError ? "refused" : "ran");
    }
    for (let i = 0; i < 3; i++) {
      const { body } = await modern(serve.url, ALICE, "tools/call", {
        name: "read_file",
        arguments: { path: "hello.txt" },
      });
      outcomes.push((body.result as { isError?: boolean }).isError ? "refused" : "ran");
    }
    // Alice's calls ran until her limit, then were refused: the attack really spent it.
    assertEquals(outcomes, ["ran", "ran", "ran", "refused", "refused", "refused"]);
    const { body } = await modern(serve.url, BOB, "tools/call", {
      name: "read_file",
      arguments: { path: "hello.txt" },
    });
    assertFalse((body.result as { isError?: boolean }).isError, textOf(body.result));
    assertMatch(textOf(body.result), /hello/);
  } finally {
    await alice.close();
  }
});

Deno.test("a bad token is refused before the batch and era checks, and a valid batch runs nothing", async () => {
  await using serve = await startServe();
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "write_file", arguments: { path: `batch${id}.txt`, content: "x" } },
  });
  for (const token of [undefined, "not-a-token", `${ALICE}x`]) {
    for (const era of ["2025-06-18", "2026-07-28"]) {
      const response = await fetch(serve.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": era,
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify([call(1), call(2)]),
      });
      await response.body?.cancel();
      assertEquals(response.status, 401, `${token} ${era}`);
    }
  }
  // With a valid token the batch reaches the batch check, and is refused whole.
  const batch = await fetch(serve.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      authorization: `Bearer ${ALICE}`,
    },
    body: JSON.stringify([call(1), call(2)]),
  });
  const answer = await batch.text();
  assert(batch.status >= 400, `${batch.status} ${answer}`);
  assertMatch(answer, /batch/i);
  for (const id of [1, 2]) assertFalse(await exists(`${serve.workspace}/batch${id}.txt`));
  // A single write with the same token runs, so the refusals above were not a broken tool.
  const single = await modern(serve.url, ALICE, "tools/call", call(3).params);
  assertFalse((single.body.result as { isError?: boolean }).isError, textOf(single.body.result));
  assert(await exists(`${serve.workspace}/batch3.txt`));
});

Deno.test("a 2026-07-28 request naming another user's 2025 session id is served as its own user", async () => {
  await using serve = await startServe({}, { defer: true });
  // Alice opens a 2025 session and loads glob into it with a search.
  const transport = new StreamableHTTPClientTransport(new URL(serve.url), {
    requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
  });
  const alice = new Client({ name: "legacy", version: "1.0.0" });
  await alice.connect(transport);
  try {
    await alice.callTool({
      name: "search_tools",
      arguments: { query: "find files whose names match a glob pattern", limit: 1 },
    });
    assertEquals((await alice.listTools()).tools.map((t) => t.name), ["search_tools", "glob"]);
    const sessionId = transport.sessionId ?? "";
    assert(sessionId !== "", "Alice's 2025 session has an id");
    // Bob sends Alice's session id on session-less and 2025 requests.
    const bobModern = await modern(serve.url, BOB, "tools/list", {}, {
      "mcp-session-id": sessionId,
    });
    assertEquals(namesOf(bobModern.body), ["search_tools"]);
    const bobLegacy = await fetch(serve.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${BOB}`,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const bobText = await bobLegacy.text();
    assertFalse(/"glob"/.test(bobText), bobText);
    assert(bobLegacy.status === 404 || bobLegacy.status === 403, `${bobLegacy.status} ${bobText}`);
    // Alice's session is untouched.
    assertEquals((await alice.listTools()).tools.map((t) => t.name), ["search_tools", "glob"]);
  } finally {
    await alice.close();
  }
});

Deno.test("arguments and a requestState nested 100,000 deep are answered as errors, and serve keeps serving", async () => {
  await using serve = await startServe({ policy: { ask: ["write_file"] } });
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  // Built as text: no JSON.stringify (recursive) could write it.
  const state = JSON.stringify(
    `{"approval":{"tool":"write_file","shown":"x","arguments":{"a":DEEP}}}`,
  ).replace("DEEP", deep);
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file",` +
    `"arguments":{"path":"x.txt","content":"x","extra":${deep}},` +
    `"inputResponses":{"approval":{"action":"accept","content":{"approve":true}}},` +
    `"requestState":${state},"_meta":${JSON.stringify(meta)}}}`;
  const hostile = await fetch(serve.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${BOB}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "write_file",
    },
    body,
  });
  const answer = await hostile.text();
  // The request reached the server and was answered, without running the write.
  assertEquals(hostile.status, 200, answer.slice(0, 300));
  assertMatch(answer, /nested deeper than 64 levels/);
  assertFalse(await exists(`${serve.workspace}/x.txt`));
  const after = await modern(serve.url, ALICE, "tools/call", {
    name: "read_file",
    arguments: { path: "hello.txt" },
  });
  assertMatch(textOf(after.body.result), /hello/);
});

Deno.test("under a policy, where serve builds a tool set per request, a cut result is read in the client's next request and never by another user", async () => {
  await using serve = await startServe({
    maxResultChars: 2000,
    policy: { deny: ["write_file"], default: "allow" },
  });
  const alice = await connectAs(serve.url, ALICE);
  const bob = await connectAs(serve.url, BOB);
  try {
    const cut = await alice.callTool({ name: "read_file", arguments: { path: "big.txt" } });
    const handle = textOf(cut).match(/"handle":"(res_\w+)"/)?.[1];
    assert(handle !== undefined, `the result was cut and kept: ${textOf(cut).slice(-300)}`);
    // The next request builds a new tool set: it lists read_result and reads the handle.
    const listed = (await alice.listTools()).tools.map((tool) => tool.name);
    assert(listed.includes("read_result"), `read_result is listed: ${listed.join(", ")}`);
    const own = await alice.callTool({ name: "read_result", arguments: { handle } });
    assertFalse(own.isError, textOf(own));
    assertMatch(textOf(own), /line of text/);
    // Bob, who cut nothing, is not offered read_result, and calling it reads nothing of Alice's.
    assertFalse((await bob.listTools()).tools.some((tool) => tool.name === "read_result"));
    const stolen = await bob.callTool({ name: "read_result", arguments: { handle } });
    assert(stolen.isError);
    assertFalse(/line of text/.test(textOf(stolen)));
  } finally {
    await alice.close();
    await bob.close();
  }
});
