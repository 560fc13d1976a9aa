/**
 * A machine without bubblewrap: `serve` with `"bash": true` and the bash tool name the cause (not
 * installed), the install command and what still works, instead of asking for
 * `--allow-run=bwrap`, a flag that cannot help (Deno grants nothing for a program not on PATH).
 * The CLI runs as a child whose PATH holds `bash` but no `bwrap`, with exactly the flags
 * `toolroute flags` prints.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import { CLI, exactFlags, makeFixture } from "./_serve_process.ts";

/** A PATH with `bash` (and `sh`) but no `bwrap`: what a machine without bubblewrap has. */
async function pathWithoutBwrap(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  for (const program of ["bash", "sh"]) {
    const real = new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).outputSync();
    await Deno.symlink(new TextDecoder().decode(real.stdout).trim(), join(bin, program));
  }
  const seen = new Deno.Command(join(bin, "sh"), {
    args: ["-c", "command -v bwrap || echo none"],
    env: { PATH: bin },
    clearEnv: true,
  }).outputSync();
  assertEquals(new TextDecoder().decode(seen.stdout).trim(), "none", "bwrap is hidden");
  return bin;
}

async function runCliChild(flags: string[], args: string[], path: string) {
  const env: Record<string, string> = {
    PATH: path,
    HOME: Deno.env.get("HOME") ?? "/",
    NO_COLOR: "1",
  };
  for (const name of ["DENO_DIR", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, ...args],
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: decode(output.stdout), err: decode(output.stderr) };
}

Deno.test("without bubblewrap, serve with bash says bwrap is not installed, how to install it and what still works", async () => {
  await using fixture = await makeFixture({ bash: true });
  const bin = await pathWithoutBwrap(fixture.dir);
  const flags = await exactFlags(["--config", fixture.config]);
  // The flag the old message asked for is given: it cannot help.
  assert(flags.some((flag) => /^--allow-run=.*\bbwrap\b/.test(flag)), flags.join(" "));
  const { code, err } = await runCliChild(flags, ["serve", "--config", fixture.config], bin);
  assertEquals(code, 2, err);
  assertStringIncludes(err, "bubblewrap (bwrap) is not installed");
  assertStringIncludes(err, "sudo apt-get install -y bubblewrap");
  assertStringIncludes(err, "sudo dnf install bubblewrap");
  assertStringIncludes(err, "the MCP servers and functions still work");
  assert(!err.includes("lacks"), err);
});

Deno.test("without bubblewrap, the bash tool answers that bwrap is not installed, not a permission to add", async () => {
  await using fixture = await makeFixture({ bash: true });
  const bin = await pathWithoutBwrap(fixture.dir);
  const flags = await exactFlags(["--config", fixture.config]);
  const marker = join(fixture.workspace, "ran");
  const { code, out, err } = await runCliChild(
    flags,
    ["call", "--config", fixture.config, "bash", JSON.stringify({ command: `touch ${marker}` })],
    bin,
  );
  assertEquals(code, 1, out + err);
  assertStringIncludes(out, "bubblewrap (bwrap) is not installed");
  assertStringIncludes(out, "sudo apt-get install -y bubblewrap");
  assert(!out.includes("--allow-run"), out);
  // The call reached the sandbox's start and the command did not run unconfined instead.
  assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
});
