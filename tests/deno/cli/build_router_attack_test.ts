// The tool set `buildRouter` keeps per user (a config without MCP servers or a policy): calls of
// two users interleaved through the kept sets each see only their own user, and a kept set is
// never another user's.
import { assert, assertEquals } from "@std/assert";
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import type { ToolrouteConfig } from "../../../src/deno/cli/toolroute_config.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

Deno.test("buildRouter()'s kept tool sets never hand one user's identity to another user's call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_build_attack_" });
  try {
    await Deno.writeTextFile(
      `${dir}/who.ts`,
      `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const whoami = defineTool({
  name: "whoami",
  description: "The caller's user",
  input: z.object({}),
  run: (_args, context) => String(context.userId ?? "-"),
});
`,
    );
    const config: ToolrouteConfig = {
      context: { workspace: dir },
      modules: [`${dir}/who.ts`],
      expose: { builtins: [], functions: ["whoami"] },
      mcpServers: {},
      users: [
        { id: "alice", tokenVariable: "T_ALICE", mcpServers: {} },
        { id: "bob", tokenVariable: "T_BOB", mcpServers: {} },
      ],
      http: {},
      variables: [],
    };
    await using served = await buildRouter(config);
    const users = ["alice", "bob", undefined] as const;
    let calls = 0;
    // Concurrent first requests of each user (the set is being built), then interleaved calls.
    const sets = await Promise.all(
      users.flatMap((user) => [served.expose(user), served.expose(user)]),
    );
    for (let i = 0; i < users.length; i++) assert(sets[2 * i] === sets[2 * i + 1]);
    assert(sets[0] !== sets[2] && sets[2] !== sets[4]);
    await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      const user = users[i % 3];
      const tools = await served.expose(user);
      const result = await tools.call("whoami", {});
      calls++;
      assertEquals(result.text, user ?? "-", `call ${i} of ${user}`);
    }));
    assertEquals(calls, 60, "the calls ran");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
