// A sandboxed bash call when bubblewrap is missing or cannot start: the session reports it and
// nothing runs unconfined instead.
import { assertEquals, assertStringIncludes } from "@std/assert";
import { bashFixture, bashUnderTest } from "../_bash_fixture.ts";

/** Runs `fn` with the host's PATH set to `path` (where the session looks for bubblewrap). */
async function withPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const before = Deno.env.get("PATH");
  Deno.env.set("PATH", path);
  try {
    return await fn();
  } finally {
    if (before === undefined) Deno.env.delete("PATH");
    else Deno.env.set("PATH", before);
  }
}

Deno.test("bash under bwrap fails clearly when bubblewrap is missing, never running unconfined", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  // No bubblewrap on the PATH the session searches (bash itself is found by its full path).
  const bin = `${fx.root}/bin`;
  await Deno.mkdir(bin);
  await Deno.symlink((await which("bash"))!, `${bin}/bash`);
  await withPath(bin, async () => {
    for (
      const args of [{ command: `echo ran > ${fx.workspace}/ran.txt` }, {
        action: "start",
        command: `echo ran > ${fx.workspace}/ran.txt`,
      }]
    ) {
      const result = await bash.call(args);
      assertEquals(result.code, "tool_error", args.action);
      assertStringIncludes(result.text, "bubblewrap (bwrap) is not installed");
      assertStringIncludes(result.text, "never run unconfined");
    }
  });
  assertEquals(await Deno.lstat(`${fx.workspace}/ran.txt`).then(() => true, () => false), false);
});

Deno.test("bash under bwrap fails clearly when bubblewrap cannot create its namespaces", async () => {
  await using fx = await bashFixture();
  // A bubblewrap that fails as one without user namespaces does, first on the PATH.
  const bin = `${fx.root}/bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/bwrap`,
    `#!/bin/sh\necho ran > ${fx.root}/fake-ran\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n`,
  );
  await Deno.chmod(`${bin}/bwrap`, 0o755);
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  await withPath(`${bin}:${Deno.env.get("PATH")}`, async () => {
    for (const args of [{ command: "echo ran" }, { action: "start", command: "echo ran" }]) {
      const result = await bash.call(args);
      assertEquals(result.code, "tool_error", args.action);
      assertStringIncludes(result.text, "could not start");
      assertStringIncludes(result.text, "No permissions to create new namespace");
      assertStringIncludes(result.text, "nothing runs unconfined");
    }
  });
  // The session really ran the fake (the attack path), and nothing ran unconfined.
  assertEquals(await Deno.readTextFile(`${fx.root}/fake-ran`), "ran\n");
});

/** The full path of a program on the host's PATH. */
async function which(program: string): Promise<string | undefined> {
  const out = await new Deno.Command("bash", { args: ["-c", `command -v ${program}`] }).output();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
}
