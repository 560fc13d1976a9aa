/**
 * A sandboxed `deno run` server gets a Deno cache of its own (`DENO_DIR` in its per-server
 * package cache) and the npm: packages its lockfile names from the host's Deno cache, read-only:
 * with no registry reachable here, a fresh cache of its own starts it only because those came
 * from the host's.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { fromFileUrl, join } from "@std/path";
import { ToolRouter } from "../../../mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { denoPackageMounts } from "../../../src/deno/sandbox/deno_package_mounts.ts";
import { hostServerPaths } from "../../../src/deno/sandbox/server_paths.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { filesServer, filesSetup, removePaths } from "../../_helpers/stdio_fixture_servers.ts";

const REPO = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");
const HOST_CACHE = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;
// The version of zod the repository's lockfile names (the fixture's import, in the host's cache).
const LOCK = JSON.parse(await Deno.readTextFile(join(REPO, "deno.lock")));
const ZOD = Object.entries(LOCK.specifiers as Record<string, string>)
  .find(([key]) => key.startsWith("npm:zod@"))![1];

Deno.test("the host's cached packages a lockfile names are mounted, others are not", async () => {
  const own = await Deno.makeTempDir({ prefix: "toolroute_deno_dir_" });
  try {
    const mounts = await denoPackageMounts(
      { args: ["run", "--config", join(REPO, "deno.json"), "x.ts"], projects: [] },
      { own, host: HOST_CACHE },
    );
    const zod = `npm/registry.npmjs.org/zod/${ZOD}`;
    assertEquals(
      mounts.find((mount) => mount.dest === join(own, zod)),
      { source: join(HOST_CACHE, zod), dest: join(own, zod) },
    );
    // What its own cache holds already is its own; nothing outside its cache is mounted.
    await Deno.mkdir(join(own, zod), { recursive: true });
    await Deno.writeTextFile(join(own, zod, "package.json"), "{}");
    const again = await denoPackageMounts(
      { args: [`--lock=${join(REPO, "deno.lock")}`], projects: [REPO] },
      { own, host: HOST_CACHE },
    );
    assert(again.length > 0 && again.every((mount) => mount.dest.startsWith(`${own}/npm/`)));
    assert(!again.some((mount) => mount.dest === join(own, zod)));
  } finally {
    await Deno.remove(own, { recursive: true });
  }
});

Deno.test({
  name:
    "a sandboxed deno run server with npm: imports starts offline from a fresh cache of its own, with the host's packages read-only",
  ignore: skipWithoutBwrap(),
  async fn() {
    const { dir, scope, server } = await filesSetup();
    const cache = hostServerPaths({ scope, serverId: "d" }).cache!;
    try {
      // A fresh cache: nothing of the server's packages is there before its start.
      await Deno.remove(cache, { recursive: true }).catch(() => {});
      await using gateway = createDenoGateway({
        servers: { d: filesServer(server, {}) },
        sandboxScope: scope,
      });
      const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ["d"] });
      assertEquals(tools.missing, [], JSON.stringify(gateway.status()));
      const ask = async (tool: string, args: Record<string, unknown>) =>
        (await tools.call(tool, args)).text;
      // It answers, with its own DENO_DIR, and npm's and jsr's hosts on its allowlist.
      assertEquals(await ask("env", { name: "DENO_DIR" }), `${cache}/deno`);
      assertMatch(await ask("env", { name: "HTTPS_PROXY" }), /^http:\/\/127\.0\.0\.1:/);
      // zod came from the host's cache into its own, read-only: the server's write into the
      // package (a poisoned file for the host's next run) is refused, and the host's is intact.
      const pkg = `${cache}/deno/npm/registry.npmjs.org/zod/${ZOD}/package.json`;
      const hostPkg = join(HOST_CACHE, `npm/registry.npmjs.org/zod/${ZOD}/package.json`);
      const before = await Deno.readTextFile(hostPkg);
      assertMatch(await ask("read", { path: pkg }), /"name": "zod"/);
      assertMatch(await ask("write", { path: pkg, text: "poisoned" }), /^failed: /);
      assertEquals(await Deno.readTextFile(hostPkg), before);
      // Its own cache is writable: a package it downloads lands there (the write ran).
      assertEquals(await ask("write", { path: `${cache}/deno/mine.txt`, text: "x" }), "written");
      assertEquals(await Deno.readTextFile(`${cache}/deno/mine.txt`), "x");
    } finally {
      await removePaths(scope, ["d"]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
