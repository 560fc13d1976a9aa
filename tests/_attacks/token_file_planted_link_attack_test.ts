// `writeTokenFile` writes with `Deno.writeTextFile(…, { createNew, mode })` since issue 27 (it
// opened the file itself before). Another local user plants a symlink, or a file, where serve
// writes its bearer token; serve must never write the token through it, nor leave it readable.
import { assert, assertEquals, assertRejects } from "@std/assert";
import { join } from "@std/path";
import { writeTokenFile } from "../../src/deno/cli/serve_token.ts";

const TOKEN = "tok_0123456789abcdefghijklmnop";

Deno.test("a symlink planted at the token file is replaced, never followed; the token is 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const victim = join(dir, "victim.txt");
    await Deno.writeTextFile(victim, "the victim's data\n");
    await Deno.chmod(victim, 0o644);
    const path = join(dir, "token");
    await Deno.symlink(victim, path);
    assert((await Deno.lstat(path)).isSymlink, "the attack ran: a link was planted");
    await writeTokenFile(path, TOKEN);
    assertEquals(await Deno.readTextFile(victim), "the victim's data\n");
    const info = await Deno.lstat(path);
    assert(info.isFile && !info.isSymlink);
    assertEquals(info.mode! & 0o777, 0o600);
    assertEquals(await Deno.readTextFile(path), `${TOKEN}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a symlink planted between the remove and the create makes the write fail, not follow it", async () => {
  const dir = await Deno.makeTempDir();
  const remove = Deno.remove;
  try {
    const victim = join(dir, "victim.txt");
    await Deno.writeTextFile(victim, "the victim's data\n");
    const path = join(dir, "token");
    let raced = 0;
    // The race won: right after serve removes the old file, the attacker's link is there again.
    Object.defineProperty(Deno, "remove", {
      configurable: true,
      writable: true,
      value: async (target: string | URL, options?: Deno.RemoveOptions) => {
        await remove(target, options).catch(() => {});
        if (String(target) === path) {
          await Deno.symlink(victim, path);
          raced++;
        }
      },
    });
    await assertRejects(() => writeTokenFile(path, TOKEN), Deno.errors.AlreadyExists);
    assertEquals(raced, 1, "the attack ran");
    assertEquals(await Deno.readTextFile(victim), "the victim's data\n", "never written through");
  } finally {
    Object.defineProperty(Deno, "remove", { configurable: true, writable: true, value: remove });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an old token file left readable (0644) is replaced by a new one of mode 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "token");
    await Deno.writeTextFile(path, "old token\n");
    await Deno.chmod(path, 0o644);
    await writeTokenFile(path, TOKEN);
    const info = await Deno.lstat(path);
    assertEquals(info.mode! & 0o777, 0o600);
    assertEquals(await Deno.readTextFile(path), `${TOKEN}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
