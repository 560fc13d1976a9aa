import { assertEquals, assertMatch, assertRejects } from "@std/assert";
import { loadConfig } from "../../../src/deno/cli/load_config.ts";
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

async function configWith(policy: unknown): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/tools.ts`,
    `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const ping = defineTool({
  name: "ping", description: "Pings", input: z.object({}),
  run: () => { (globalThis as Record<string, number>).pings = ((globalThis as Record<string, number>).pings ?? 0) + 1; return "pong"; },
});
`,
  );
  const path = `${dir}/toolroute.json`;
  await Deno.writeTextFile(path, JSON.stringify({ modules: ["tools.ts"], policy }));
  return { dir, path };
}

Deno.test("toolroute.json takes policy.limits: the served router refuses the call over the limit", async () => {
  const { dir, path } = await configWith({
    limits: [{ match: "ping", max: 2, windowMs: 3_600_000, per: "user" }],
  });
  try {
    await using served = await buildRouter(await loadConfig(path, { env: false }));
    const tools = await served.expose("alice");
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await tools.call("ping", {})).code ?? "ok");
    assertEquals(codes, ["ok", "ok", "rate_limited", "rate_limited"]);
    assertEquals((globalThis as Record<string, unknown>).pings, 2, "the tool really ran twice");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolroute.json with a malformed limit is a usage error naming it", async () => {
  for (const limits of [[{ match: "ping", max: 0 }], [{ match: "ping", max: 1, per: "team" }]]) {
    const { dir, path } = await configWith({ limits });
    try {
      const error = await assertRejects(() => loadConfig(path, { env: false }), UsageError);
      assertMatch(error.message, /limits/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});
