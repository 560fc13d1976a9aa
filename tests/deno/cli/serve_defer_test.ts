// `serve --defer`: tools/list holds search_tools (and the kept tools); a client's search lists
// the tools it found for that client alone, which is told with notifications/tools/list_changed.
import { assert, assertEquals, assertFalse, assertMatch } from "@std/assert";
import type { ToolrouteConfig } from "../../../src/deno/cli/toolroute_config.ts";
import { connectAs, startServeHttp } from "../../_helpers/serve_http_in_process.ts";
import { cli, makeFixture } from "./_serve_process.ts";

const TOKENS = { "alice-token-0123456789": "alice", "bob-token-0123456789ab": "bob" };

function startDeferred(
  defer: ToolrouteConfig["expose"]["defer"],
  options: { flag?: boolean; policy?: ToolrouteConfig["policy"] } = {},
) {
  return startServeHttp({
    expose: {
      builtins: ["read_file", "write_file", "glob", "grep"],
      ...(defer === undefined ? {} : { defer }),
    },
    ...(options.policy === undefined ? {} : { policy: options.policy }),
  }, {
    tokens: TOKENS,
    defer: options.flag,
    files: { "hello.txt": "hello\n" },
    prefix: "toolroute_defer_",
  });
}

async function connect(url: string, token: string) {
  let changes = 0;
  const client = await connectAs(url, token, { onToolListChanged: () => changes++ });
  return {
    client,
    changes: () => changes,
    names: async () => (await client.listTools()).tools.map((tool: { name: string }) => tool.name),
  };
}

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("serve with defer lists search_tools; a search lists tools for that client alone", async () => {
  await using serve = await startDeferred({ keep: ["read_file"] });
  const first = await connect(serve.url, "alice-token-0123456789");
  const second = await connect(serve.url, "alice-token-0123456789"); // the same user, another client
  const bob = await connect(serve.url, "bob-token-0123456789ab");
  try {
    assertEquals(await first.names(), ["search_tools", "read_file"]);
    const found = await first.client.callTool({
      name: "search_tools",
      arguments: { query: "find files whose names match a glob pattern", limit: 1 },
    });
    assertEquals(JSON.parse(textOf(found)).tools.map((t: { name: string }) => t.name), ["glob"]);
    // Told on the call's own stream, before its answer.
    assertEquals(first.changes(), 1);
    assertEquals(await first.names(), ["search_tools", "read_file", "glob"]);
    const globbed = await first.client.callTool({ name: "glob", arguments: { pattern: "*.txt" } });
    assertFalse((globbed as { isError?: boolean }).isError, textOf(globbed));
    assertMatch(textOf(globbed), /hello\.txt/);
    // Nothing reached the other clients: not listed, not callable, no notification.
    for (const other of [second, bob]) {
      assertEquals(await other.names(), ["search_tools", "read_file"]);
      const refused = await other.client.callTool({ name: "glob", arguments: { pattern: "*" } });
      assert((refused as { isError?: boolean }).isError);
      assertMatch(textOf(refused), /Unknown tool "glob"/);
      assertEquals(other.changes(), 0);
    }
    // A search that finds nothing new changes nothing and sends nothing.
    await first.client.callTool({
      name: "search_tools",
      arguments: { query: "find files whose names match a glob pattern", limit: 1 },
    });
    assertEquals(first.changes(), 1);
    assertEquals(await first.names(), ["search_tools", "read_file", "glob"]);
  } finally {
    for (const each of [first, second, bob]) await each.client.close();
  }
});

Deno.test("with a policy (a set rebuilt per request) a client keeps what it loaded, and finds nothing denied", async () => {
  await using serve = await startDeferred(true, { policy: { deny: ["write_file"] } });
  const first = await connect(serve.url, "alice-token-0123456789");
  const second = await connect(serve.url, "alice-token-0123456789");
  try {
    assertEquals(await first.names(), ["search_tools"]);
    const denied = await first.client.callTool({
      name: "search_tools",
      arguments: { query: "write_file write a file", limit: 5 },
    });
    const names = JSON.parse(textOf(denied)).tools.map((t: { name: string }) => t.name);
    assert(names.length > 0, "the search ran and found tools");
    assertFalse(names.includes("write_file"));
    assertEquals(first.changes(), 1);
    assertEquals(await first.names(), ["search_tools", ...names]);
    // Rebuilt for the next request: the same list, in the same order, still callable.
    assertEquals(await first.names(), ["search_tools", ...names]);
    const read = await first.client.callTool({
      name: names[0],
      arguments: { path: "hello.txt", pattern: "*" },
    });
    assertFalse(/Unknown tool/.test(textOf(read)), textOf(read));
    assertEquals(await second.names(), ["search_tools"]);
  } finally {
    for (const each of [first, second]) await each.client.close();
  }
});

Deno.test("serve --defer (the flag) defers a config without defer; without either nothing is deferred", async () => {
  {
    await using serve = await startDeferred(undefined, { flag: true });
    const client = await connect(serve.url, "alice-token-0123456789");
    assertEquals(await client.names(), ["search_tools"]);
    await client.client.close();
  }
  await using serve = await startDeferred(undefined);
  const client = await connect(serve.url, "alice-token-0123456789");
  assertEquals(await client.names(), ["glob", "grep", "read_file", "write_file"]);
  await client.client.close();
});

Deno.test("the config's expose.defer is checked: keep holds tool names", async () => {
  await using fixture = await makeFixture({ expose: { defer: { keep: ["not a name"] } } });
  const { code, err } = await cli(["tools", "--config", fixture.config]);
  assertEquals(code, 2);
  assertMatch(err, /defer/);
});
