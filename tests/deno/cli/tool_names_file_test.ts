import { assert, assertEquals, assertMatch } from "@std/assert";
import { startMcpTestServer, type TestServer } from "../../_helpers/mcp_test_server.ts";
import { cli, exactFlags, makeFixture, startHttpServe } from "./_serve_process.ts";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import { loadConfig } from "../../../src/deno/cli/load_config.ts";
import type { McpGatewayEvent } from "../../../src/core/mcp/mod.ts";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

/** An upstream listing `search` (shared with the other server) and one tool of its own. */
function upstream(own: string): Promise<TestServer> {
  return startMcpTestServer({
    tools: (mcp) => {
      for (const name of ["search", own]) {
        mcp.registerTool(name, { description: name }, () => ({ content: [] }));
      }
    },
  });
}

/**
 * Two upstreams, `a` (with `alpha`) and `b` (with `beta`), both offering `search`, and a config
 * serving both (no built-in tools unless `config` says otherwise). Disposing closes all three.
 */
async function twoUpstreams(config: Record<string, unknown> = {}) {
  const a = await upstream("alpha");
  const b = await upstream("beta");
  const fixture = await makeFixture({
    expose: { builtins: [] },
    ...config,
    mcpServers: { a: { url: a.url }, b: { url: b.url } },
  });
  return {
    a,
    b,
    fixture,
    async [Symbol.asyncDispose]() {
      await a.close();
      await b.close();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

/** The names `toolroute tools --json` lists, each with the server and tool it leads to. */
async function listed(config: string[]): Promise<Record<string, string>> {
  const result = await cli(["tools", "--json", ...config]);
  assertEquals(result.code, 0, result.err);
  const { tools } = JSON.parse(result.out) as { tools: { name: string; description: string }[] };
  return Object.fromEntries(tools.map((tool) => [tool.name, tool.description]));
}

Deno.test("a restart with one server down renames no other server's tool: the last known lists are kept beside the config", async () => {
  await using servers = await twoUpstreams();
  const { a, fixture } = servers;
  const config = ["--config", fixture.config];
  // Both up: both offer `search`, so both are qualified.
  assertEquals(await listed(config), {
    a_search: "search",
    alpha: "alpha",
    b_search: "search",
    beta: "beta",
  });
  // A restart (a new process's gateway) with `a` down: `b`'s search keeps its name.
  await a.close();
  const down = await cli(["tools", "--json", ...config]);
  assert(JSON.parse(down.out).missing.some((m: { name: string }) => m.name === "a"), down.out);
  assertEquals(await listed(config), { b_search: "search", beta: "beta" });
  const kept = JSON.parse(await Deno.readTextFile(`${fixture.dir}/toolroute.names.json`));
  assertEquals(kept.servers, { a: ["search", "alpha"], b: ["search", "beta"] });
});

/** Serves a config once (as one start of `serve`) and returns the names and the gateway's events. */
async function serveOnce(configPath: string, store?: MemoryStore) {
  const events: McpGatewayEvent[] = [];
  const config = await loadConfig(configPath);
  let names: string[];
  {
    await using served = await buildRouter(config, {
      onGatewayEvent: (event) => events.push(event),
      ...(store === undefined ? {} : { store }),
    });
    names = [...(await served.expose()).names].sort();
  }
  return { names, events: events.filter((event) => event.type.startsWith("names_")) };
}

Deno.test("a corrupt or hostile toolroute.names.json is reported per server and rewritten, never a crash or a name for another server's tool", async () => {
  await using servers = await twoUpstreams();
  const { a, fixture } = servers;
  const file = `${fixture.dir}/toolroute.names.json`;
  await a.close();

  // Not JSON: each server whose list is wanted says so; names follow the servers that answer.
  await Deno.writeTextFile(file, "{ not json");
  const garbled = await serveOnce(fixture.config);
  assertEquals(garbled.names, ["beta", "search"]);
  assertEquals(garbled.events.map((e) => [e.type, e.serverId]), [["names_ignored", "a"]]);
  assertMatch(garbled.events[0].message!, /Cannot read ".*toolroute\.names\.json"/);
  // Rewritten from what this start knew.
  assertEquals(JSON.parse(await Deno.readTextFile(file)).servers, { b: ["search", "beta"] });

  // Hostile entries: `a`'s list is not a list, an inherited key, another user's list, and `b`'s
  // kept list claiming `a`'s qualified name.
  await Deno.writeTextFile(
    file,
    `{"version":1,"servers":{"__proto__":["search"],"a":{"search":1},"b":["a_search","search"]},` +
      `"users":{"bob":{"a":["search"]}}}`,
  );
  const hostile = await serveOnce(fixture.config);
  // `b` answered: its own list wins; nothing claimed for `a` qualifies `b`'s search.
  assertEquals(hostile.names, ["beta", "search"]);
  assertEquals(hostile.events.map((e) => [e.type, e.serverId]), [["names_ignored", "a"]]);
  assertMatch(hostile.events[0].message!, /not an array of strings/);

  // A well-formed list for `a` (as a start with both up keeps it) makes `b`'s search qualified.
  await Deno.writeTextFile(
    file,
    JSON.stringify({ version: 1, servers: { a: ["search", "alpha"] }, users: {} }),
  );
  const kept = await serveOnce(fixture.config);
  assertEquals(kept.names, ["b_search", "beta"]);
  assertEquals(kept.events, []);
});

Deno.test("with a store (serve --store), the last known tool lists are kept in the store, not beside the config", async () => {
  await using servers = await twoUpstreams();
  const { a, fixture } = servers;
  const store = new MemoryStore();
  assertEquals((await serveOnce(fixture.config, store)).names, [
    "a_search",
    "alpha",
    "b_search",
    "beta",
  ]);
  assertEquals(await store.get(["tool-names", "global", "a"]), ["search", "alpha"]);
  await a.close();
  assertEquals((await serveOnce(fixture.config, store)).names, ["b_search", "beta"]);
  let exists = true;
  await Deno.stat(`${fixture.dir}/toolroute.names.json`).catch(() => exists = false);
  assert(!exists, "nothing written beside the config");
});

/** The tool names one start of `serve --http` (exact flags) lists to an MCP client. */
async function serveNames(config: string[]): Promise<{ names: string[]; log: string }> {
  await using serve = await startHttpServe(
    await exactFlags([...config, "--http", "127.0.0.1:0"]),
    config,
  );
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  await client.close();
  assertEquals(await serve.stop(), 0);
  return { names, log: serve.stderr() };
}

Deno.test("two serve processes with the exact flags: the second, started with a server down, serves the first's names", async () => {
  await using servers = await twoUpstreams();
  const { a, fixture } = servers;
  const config = ["--config", fixture.config];
  const first = await serveNames(config);
  assertEquals(first.names, ["a_search", "alpha", "b_search", "beta"]);
  await a.close();
  const second = await serveNames(config);
  assertEquals(second.names, ["b_search", "beta"]);
  // The flags `toolroute flags` prints cover reading and writing the file.
  assert(!/names (unsaved|ignored)/.test(first.log + second.log), first.log + second.log);
});

Deno.test({
  name:
    "the names file in the workspace is serve's own: the tools cannot rewrite it, and serve's writes are not taken for a planted file",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using servers = await twoUpstreams({
      workspace: ".",
      bash: { sandbox: "bwrap" },
      expose: { builtins: ["write_file", "bash"] },
    });
    const { a, b, fixture } = servers;
    const file = `${fixture.dir}/toolroute.names.json`;
    // Both servers are down at start: nothing to keep yet when the first command runs.
    await a.close();
    await b.close();
    await using served = await buildRouter(await loadConfig(fixture.config));
    // Created at start, before the start-up files were computed: protected like the lock.
    assert(served.startupFiles.includes(file), served.startupFiles.join(", "));
    const first = await served.expose();
    assertMatch((await first.call("bash", { command: "echo first" })).text, /first/);
    // The servers come up: serve writes their lists after the sandbox's first walk.
    await a.restart();
    await b.restart();
    let tools = await served.expose();
    for (let i = 0; i < 50 && !tools.names.includes("b_search"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      tools = await served.expose();
    }
    assert(tools.names.includes("b_search"), tools.names.join(", "));
    // Kept in the background: wait until the file has both lists.
    const listed = async () => {
      try {
        return JSON.parse(await Deno.readTextFile(file)).servers?.b !== undefined;
      } catch {
        return false; // not written yet, or being written
      }
    };
    for (let i = 0; i < 100 && !(await listed()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const written = await tools.call("write_file", {
      path: "toolroute.names.json",
      content: '{"version":1,"servers":{"a":[]}}',
    });
    assertEquals(written.code, "permission_denied", written.text);
    const bash = await tools.call("bash", {
      command: `echo '{"version":1,"servers":{}}' > toolroute.names.json; echo tried`,
    });
    assertMatch(bash.text, /tried/, "the command ran");
    assertMatch(bash.text, /Read-only file system/);
    // Serve's own writes (after the first walk) stay where they are, with the lists.
    const kept = JSON.parse(await Deno.readTextFile(file));
    assertEquals(kept.servers, { a: ["search", "alpha"], b: ["search", "beta"] });
    const aside = [...Deno.readDirSync(fixture.dir)].filter((e) => e.name.includes("disabled"));
    assertEquals(aside, []);
  },
});
