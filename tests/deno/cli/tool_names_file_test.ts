import { assert, assertEquals } from "@std/assert";
import { startMcpTestServer, type TestServer } from "../../_helpers/mcp_test_server.ts";
import { cli, makeFixture } from "./_serve_process.ts";

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

/** The names `toolroute tools --json` lists, each with the server and tool it leads to. */
async function listed(config: string[]): Promise<Record<string, string>> {
  const result = await cli(["tools", "--json", ...config]);
  assertEquals(result.code, 0, result.err);
  const { tools } = JSON.parse(result.out) as { tools: { name: string; description: string }[] };
  return Object.fromEntries(tools.map((tool) => [tool.name, tool.description]));
}

Deno.test("a restart with one server down renames no other server's tool: the last known lists are kept beside the config", async () => {
  const a = await upstream("alpha");
  const b = await upstream("beta");
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      mcpServers: { a: { url: a.url }, b: { url: b.url } },
    });
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
  } finally {
    await a.close();
    await b.close();
  }
});
