/**
 * A stdio server's config (copied from the internet) or its own install tries to make the
 * read-only mounts that `commandNeeds` derives from its command show the user's home or a
 * secret folder in it: the home written as `home/`, `home/.`, `//home` or through a link, as an
 * argument or `cwd`; a cache variable (`npm_config_cache`, `DENO_DIR`) set to `${HOME}/.ssh` or
 * the home; a config that moves `HOME` so the real one is no longer guarded; and a launcher
 * installed in `~/.local/bin` whose `bin/` parent holds keyrings. Each attack's path is checked
 * to really lead to the home or its secrets, and no mount may resolve there.
 *
 * @module
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { commandNeeds } from "../../../src/deno/sandbox/command_needs.ts";
import { spawnSandboxed } from "../../../src/deno/sandbox/spawn_sandboxed.ts";
import { STDIO_SANDBOX_LIMITS } from "../../../src/deno/mcp/stdio_sandbox.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

interface FakeHome extends AsyncDisposable {
  home: string;
  env: Record<string, string>;
}

/** A home with an SSH key, a keyring under ~/.local/share and a `uvx` in ~/.local/bin. */
async function fakeHome(): Promise<FakeHome> {
  const home = await Deno.makeTempDir({ prefix: "toolroute-needs-home-" });
  await Deno.mkdir(`${home}/.ssh`);
  await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "SECRET-KEY");
  await Deno.mkdir(`${home}/.local/bin`, { recursive: true });
  await Deno.mkdir(`${home}/.local/share/keyrings`, { recursive: true });
  await Deno.writeTextFile(`${home}/.local/share/keyrings/login.keyring`, "SECRET-KEYRING");
  await Deno.copyFile("/usr/bin/true", `${home}/.local/bin/uvx`);
  await Deno.symlink(home, `${home}.link`);
  return {
    home,
    env: { PATH: `${home}/.local/bin:/usr/bin:/bin`, HOME: home },
    async [Symbol.asyncDispose]() {
      await Deno.remove(`${home}.link`);
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** Whether a mount shows the home, something above it, or a secret in it. */
function exposes(path: string, home: string): boolean {
  const real = Deno.realPathSync(path);
  const secrets = [`${home}/.ssh`, `${home}/.local/share`];
  return real === home || home.startsWith(`${real}/`) || real === "/" ||
    secrets.some((secret) =>
      real === secret || `${secret}/`.startsWith(`${real}/`) ||
      real.startsWith(`${secret}/`)
    );
}

type Spawn = { command: string; args: string[]; cwd?: string };

const ATTACKS: {
  name: string;
  spawn: (home: string) => Spawn;
  env?: (home: string) => Record<string, string>;
  /** The path the attack aims at, which must lead to the home or its secrets. */
  aim: (home: string) => string;
}[] = [
  {
    name: "home/ as an argument",
    spawn: (h) => ({ command: "bash", args: [`${h}/`] }),
    aim: (h) => `${h}/`,
  },
  {
    name: "home/. as an argument",
    spawn: (h) => ({ command: "bash", args: [`${h}/.`] }),
    aim: (h) => `${h}/.`,
  },
  {
    name: "//home as an argument",
    spawn: (h) => ({ command: "bash", args: [`/${h}`] }),
    aim: (h) => `/${h}`,
  },
  {
    name: "a link to the home as an argument",
    spawn: (h) => ({ command: "bash", args: [`${h}.link`] }),
    aim: (h) => `${h}.link`,
  },
  {
    name: "cwd home/",
    spawn: (h) => ({ command: "bash", args: [], cwd: `${h}/` }),
    aim: (h) => `${h}/`,
  },
  {
    name: "npm_config_cache set to ${HOME}/.ssh",
    spawn: () => ({ command: "bash", args: [] }),
    env: (h) => ({ npm_config_cache: `${h}/.ssh` }),
    aim: (h) => `${h}/.ssh`,
  },
  {
    name: "DENO_DIR set to ${HOME}/",
    spawn: () => ({ command: "bash", args: [] }),
    env: (h) => ({ DENO_DIR: `${h}/` }),
    aim: (h) => `${h}/`,
  },
  {
    name: "a config that moves HOME and sets DENO_DIR to the real home",
    spawn: () => ({ command: "bash", args: [] }),
    env: (h) => ({ HOME: "/nonexistent", DENO_DIR: h }),
    aim: (h) => h,
  },
  {
    name: "uvx installed in ~/.local/bin (its bin/ parent holds the keyrings)",
    spawn: () => ({ command: "uvx", args: ["some-server"] }),
    aim: (h) => `${h}/.local/share/keyrings/login.keyring`,
  },
];

for (const attack of ATTACKS) {
  Deno.test(`commandNeeds shows nothing of the home for ${attack.name}`, async () => {
    await using world = await fakeHome();
    const aim = attack.aim(world.home);
    // The attack is real: its path leads to the home or a secret in it.
    assert(exposes(aim, world.home), `${aim} leads to the home`);
    const env = { ...world.env, ...attack.env?.(world.home) };
    const needs = await commandNeeds(attack.spawn(world.home), env);
    // The probe ran on this command (it found the program), and mounted nothing of the home.
    assert(needs.program !== undefined, "the probe found the program");
    for (const path of needs.readOnly) {
      assert(!exposes(path, world.home), `${path} is mounted: ${JSON.stringify(needs.readOnly)}`);
    }
    if (attack.name.startsWith("uvx")) {
      // Its program still starts: bin/ itself is shown.
      assertEquals(needs.readOnly, [`${world.home}/.local/bin`]);
    }
  });
}

async function run(
  spawn: Spawn & { env: Record<string, string> },
  sandboxed: boolean,
): Promise<string> {
  if (!sandboxed) {
    const output = await new Deno.Command(spawn.command, { ...spawn, clearEnv: true }).output();
    return new TextDecoder().decode(output.stdout);
  }
  const { child } = await spawnSandboxed(spawn, {
    roots: [],
    readOnly: [],
    limits: STDIO_SANDBOX_LIMITS,
  });
  await child.stdin.close();
  const [stdout] = await Promise.all([new Response(child.stdout).text(), child.stderr.cancel()]);
  await child.status;
  return stdout;
}

Deno.test({
  name: "a sandboxed server given its home as `home/` does not read the user's SSH key",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await fakeHome();
    const spawn = {
      command: "bash",
      args: ["-c", 'cat "$0/.ssh/id_ed25519" 2>/dev/null || echo NOT-READ', `${world.home}/`],
      env: world.env,
    };
    // Unconfined, the same command reads the key: the attack runs.
    assertStringIncludes(await run(spawn, false), "SECRET-KEY");
    const sandboxed = await run(spawn, true);
    assertStringIncludes(sandboxed, "NOT-READ");
    assert(!sandboxed.includes("SECRET-KEY"), sandboxed);
  },
});
