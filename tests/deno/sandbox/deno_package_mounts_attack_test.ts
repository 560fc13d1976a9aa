/**
 * A hostile `deno` server against the host-side reading of its lockfiles and its own Deno cache
 * (`denoPackageMounts`), which runs as the host user before each start: a link it plants in its
 * own cache, and lockfiles that never end or are huge.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import { ToolRouter } from "../../../mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import {
  denoPackageMounts,
  LOCKFILE_MAX_BYTES,
} from "../../../src/deno/sandbox/deno_package_mounts.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { fixtureReadOnly, hostileServer, plantHostileWorld } from "./_hostile_world.ts";

const REGISTRY = "npm/registry.npmjs.org";

/** A lockfile as Deno writes it, naming `name@version` keys under its "npm". */
function lockfile(packages: string[]): string {
  const entries = packages.map((key) => `    "${key}": {\n      "integrity": "sha512-x"\n    }`);
  return `{\n  "version": "5",\n  "npm": {\n${entries.join(",\n")}\n  }\n}\n`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name:
    "a link a sandboxed deno server plants in its own cache does not lead the host to remove a folder outside it",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const scope = join(world.roots, "toolroute.json");
    // The host's empty folder the attack removes (a mount point, an empty `~/.gnupg` folder).
    const victim = join(world.outside, "victim");
    await Deno.mkdir(join(victim, "target"), { recursive: true });
    const lock = join(world.roots, "deno.lock");
    const server = () => {
      const config = hostileServer({ roots: [world.roots], readOnly: fixtureReadOnly() });
      // Its lockfile in its roots, as a project it works on (or the one its author ships).
      const args = config.args!;
      return { ...config, args: [...args.slice(0, -1), `--lock=${lock}`, ...args.slice(-1)] };
    };
    const start = async () => {
      const gateway = createDenoGateway({
        servers: { evil: server() },
        sandboxScope: scope,
        requestTimeoutMs: 60_000,
      });
      const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ["evil"] });
      return { gateway, tools };
    };
    {
      const { gateway, tools } = await start();
      try {
        assertEquals(tools.missing, [], JSON.stringify(gateway.status()));
        const run = async (tool: string, args: Record<string, unknown>) => {
          const result = await tools.call(tool, args);
          const outcome = JSON.parse(result.text);
          assertEquals(outcome.ok, true, result.text);
          return outcome;
        };
        const own = (await run("env", {})).env.DENO_DIR as string;
        assert(own?.startsWith(world.home), `its own cache is the host's: ${own}`);
        // From inside its sandbox: a link in its own cache to a host folder it cannot see, a
        // plain empty folder beside it, and a lockfile naming both.
        await run("make_dir", { path: `${own}/${REGISTRY}/plain/target` });
        await run("symlink", { target: victim, path: `${own}/${REGISTRY}/evil` });
        await run("write_file", { path: lock, text: lockfile(["evil@target", "plain@target"]) });
        // The link really is on the host, in its cache, and leads to the host's folder.
        assertEquals(await Deno.realPath(`${own}/${REGISTRY}/evil/target`), join(victim, "target"));
      } finally {
        await gateway.close();
      }
    }
    // Its next start: the host reads the lockfile and tidies its own cache before bubblewrap.
    const { gateway } = await start();
    await gateway.close();
    const cache = join(world.home, ".cache/toolroute/servers");
    const [ownDir] = [...Deno.readDirSync(cache)].map((entry) => join(cache, entry.name));
    // The tidying ran for the lockfile's packages: the plain empty folder was removed…
    assertEquals(await exists(`${ownDir}/deno/${REGISTRY}/plain/target`), false);
    // …but the link was not followed: the host's folder is still there.
    assert(await exists(join(victim, "target")), "the host's folder outside the cache was removed");
  },
});

Deno.test("a lockfile that never ends, or a huge one, is not read, one naming paths mounts nothing outside the host's npm cache, and the host goes on", async () => {
  const base = await Deno.makeTempDir({ prefix: "toolroute_lock_attack_" });
  try {
    const own = join(base, "own");
    const host = join(base, "host");
    await Deno.mkdir(own);
    for (const name of ["ok", "zero", "fifo", "huge", "fine"]) {
      await Deno.mkdir(join(host, REGISTRY, name, "1.0.0"), { recursive: true });
      await Deno.writeTextFile(join(host, REGISTRY, name, "1.0.0", "package.json"), "{}");
      await Deno.mkdir(join(base, name));
    }
    // Read, as the control: a lockfile the host reads names a package its cache holds. Beside
    // it, names that climb out of the host's npm cache to a folder of the host's (`secret/1.0.0`
    // beside the cache), absolute or by `..`, and a version that is a path.
    await Deno.mkdir(join(base, "secret", "1.0.0"), { recursive: true });
    await Deno.writeTextFile(
      join(base, "ok", "deno.lock"),
      lockfile([
        "ok@1.0.0",
        "../../../secret@1.0.0",
        `${base}/secret@1.0.0`,
        "ok@../../../../secret/1.0.0",
        "ok@..",
      ]),
    );
    // Endless: a link to /dev/zero (a repository may ship one) and a FIFO no one writes.
    await Deno.symlink("/dev/zero", join(base, "zero", "deno.lock"));
    const mkfifo = await new Deno.Command("mkfifo", { args: [join(base, "fifo", "deno.lock")] })
      .output();
    assert(mkfifo.success, "the FIFO is planted");
    // Huge: a lockfile past the bound whose first lines name a package the host holds.
    const head = lockfile(["huge@1.0.0"]);
    const huge = await Deno.open(join(base, "huge", "deno.lock"), { write: true, create: true });
    await huge.write(new TextEncoder().encode(head));
    await huge.truncate(LOCKFILE_MAX_BYTES + 1);
    huge.close();
    // The same first lines under the bound are read: only the size keeps the huge one out.
    await Deno.writeTextFile(join(base, "fine", "deno.lock"), head.replace("huge@", "fine@"));
    const mounts = await denoPackageMounts(
      { args: [], projects: ["zero", "fifo", "huge", "ok", "fine"].map((n) => join(base, n)) },
      { own, host },
    );
    // Only packages of the host's npm cache, at their place in its own.
    assert(mounts.every((mount) => mount.source.startsWith(`${host}/${REGISTRY}/`)));
    assertEquals(mounts.map((mount) => mount.dest).sort(), [
      join(own, REGISTRY, "fine", "1.0.0"),
      join(own, REGISTRY, "ok", "1.0.0"),
    ]);
    // No reader was left behind on the host.
    const ps = await new Deno.Command("ps", { args: ["-eo", "args"] }).output();
    const left = new TextDecoder().decode(ps.stdout).split("\n")
      .filter((line) => line.includes("toolroute-packages") && line.includes(base));
    assertEquals(left, []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
