// A protected file at a fixed place that does not exist (the lock beside the config, a deno.json
// where Deno would discover it) is refused to the file tools, but bubblewrap binds only what
// exists: a sandboxed command could create it, and toolroute or Deno read it at the next start.
// After each command such a file is renamed aside, as a planted repository is.
import { assert, assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { SqliteStore } from "../../../src/deno/store/sqlite_store.ts";
import { trustFiles } from "../../../src/deno/cli/startup_protection.ts";

Deno.test({
  name:
    "a sandboxed command that creates an absent lock or deno.json finds it renamed aside, and the user's own protected file stays",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const ws = fx.workspace;
    await Deno.writeTextFile(`${ws}/toolroute.json`, '{"servers":{}}\n');
    await using router = sandboxedBash(ws, [
      ".git",
      "./toolroute.json",
      "./toolroute.lock",
      "./deno.json",
      "cfg/deno.jsonc",
    ]);
    const tools = await started(router);
    // The attack: create each absent protected file, and try the existing one.
    const result = await tools.call("bash", {
      command: `printf evil > toolroute.lock && printf '{"tasks":{}}' > deno.json && ` +
        `mkdir cfg && printf x > cfg/deno.jsonc && cat toolroute.lock && ` +
        `(printf evil > toolroute.json 2>/dev/null || echo refused)`,
    });
    assertFalse(result.isError, result.text);
    const body = JSON.parse(result.text);
    // It ran: the files were created inside the command (it read its own lock back).
    assertEquals(body.stdout, "evilrefused\n");
    assertEquals(await Deno.readTextFile(`${ws}/toolroute.lock.disabled-by-toolroute`), "evil");
    // Contained: none is where it would be read; the notice names them; the user's file stays.
    for (const name of ["toolroute.lock", "deno.json", "cfg/deno.jsonc"]) {
      assertFalse(await exists(`${ws}/${name}`), `${name} was left in place`);
      assert(await exists(`${ws}/${name}.disabled-by-toolroute`), name);
      assertStringIncludes(body.notice ?? "", JSON.stringify(name));
    }
    assertEquals(await Deno.readTextFile(`${ws}/toolroute.json`), '{"servers":{}}\n');
    // The next command runs, and a file created again is renamed aside again.
    const again = await tools.call("bash", { command: "printf evil2 > toolroute.lock" });
    assertFalse(again.isError, again.text);
    assertFalse(await exists(`${ws}/toolroute.lock`));
    assertEquals(await Deno.readTextFile(`${ws}/toolroute.lock.disabled-by-toolroute-2`), "evil2");
  },
});

Deno.test({
  name:
    "a sandboxed command that plants a -journal beside the --store database finds it renamed aside (SQLite replays it at the next open, even in WAL mode)",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const ws = fx.workspace;
    await Deno.mkdir(`${ws}/state`);
    const db = `${ws}/state/pins.db`;
    // The host's store, open in WAL mode (its -wal and -shm exist, and are bound read-only).
    using store = new SqliteStore(db);
    await store.set(["pin"], "legit");
    const trust = trustFiles({ store: db }).map((p) => `./${p.slice(ws.length + 1)}`);
    await using router = sandboxedBash(ws, [".git", ...trust]);
    const tools = await started(router);
    // The attack: a rollback journal planted where SQLite looks for a hot one.
    const result = await tools.call("bash", {
      command: "printf evil > state/pins.db-journal && cat state/pins.db-journal",
    });
    assertFalse(result.isError, result.text);
    const body = JSON.parse(result.text);
    assertEquals(body.stdout, "evil", "the command created the journal");
    assertFalse(await exists(`${db}-journal`), "the planted journal was left in place");
    assertEquals(await Deno.readTextFile(`${db}-journal.disabled-by-toolroute`), "evil");
    assertStringIncludes(body.notice ?? "", "state/pins.db-journal");
    // The store's own WAL files are left alone, and it goes on working.
    assert(await exists(`${db}-wal`));
    await store.set(["pin"], "still");
    assertEquals(await store.get(["pin"]), "still");
  },
});

/** A router whose sandboxed `bash` protects `protectedPaths`. */
function sandboxedBash(workspace: string, protectedPaths: string[]): ToolRouter {
  return new ToolRouter({
    builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" }, protectedPaths }),
  });
}

/** The router's `bash`, its session started by a first command (the walk's baseline). */
async function started(router: ToolRouter) {
  const tools = await router.expose({ builtins: ["bash"] });
  assertFalse((await tools.call("bash", { command: "true" })).isError);
  return tools;
}
