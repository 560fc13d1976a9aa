// Finding 5 of issue 25 (and the audit-file part of 11): `toolroute.lock`, the `--store`
// database and the `--audit` file sit in the workspace beside the config; the model rewrote or
// deleted them with the file tools or a command, and the drifted tool was served after a restart.
// Each test runs the rewrite through every writer and asserts that it was attempted and refused.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { resolveConfig } from "../../../src/deno/cli/load_config.ts";
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import { trustFiles } from "../../../src/deno/cli/startup_protection.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { cli } from "./_serve_process.ts";

const LOCK = JSON.stringify({ version: 1, servers: {}, users: {} }) + "\n";

async function workspaceWithTrustFiles(bash: unknown) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_trust_" }));
  const config = {
    workspace: ".",
    bash,
    expose: { builtins: ["write_file", "apply_patch", "edit", "bash"] },
  };
  await Deno.writeTextFile(`${root}/toolroute.json`, JSON.stringify(config));
  await Deno.writeTextFile(`${root}/toolroute.lock`, LOCK);
  await Deno.mkdir(`${root}/state`);
  await Deno.writeTextFile(`${root}/state/pins.db`, "pins\n");
  await Deno.writeTextFile(`${root}/state/pins.db-wal`, "wal\n");
  await Deno.writeTextFile(`${root}/audit.jsonl`, '{"outcome":"ok"}\n');
  return {
    root,
    config: resolveConfig(config, { path: `${root}/toolroute.json`, cwd: root }),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const TRUSTED = ["toolroute.lock", "state/pins.db", "state/pins.db-wal", "audit.jsonl"];

async function rewriteTrustFiles(sandboxed: boolean) {
  await using ws = await workspaceWithTrustFiles(sandboxed ? { sandbox: "bwrap" } : false);
  await using served = await buildRouter(ws.config, {
    trustFiles: trustFiles({ store: `${ws.root}/state/pins.db`, audit: `${ws.root}/audit.jsonl` }),
  });
  const tools = await served.expose();
  for (const path of TRUSTED) {
    const before = await Deno.readTextFile(`${ws.root}/${path}`);
    const written = await tools.call("write_file", { path, content: "{}" });
    assertEquals(written.code, "permission_denied", `write_file ${path}: ${written.text}`);
    const deleted = await tools.call("apply_patch", {
      patch: `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`,
    });
    assertEquals(deleted.code, "permission_denied", `apply_patch ${path}: ${deleted.text}`);
    const edited = await tools.call("edit", {
      path,
      oldString: before.slice(0, 3),
      newString: "xx",
    });
    assertEquals(edited.code, "permission_denied", `edit ${path}: ${edited.text}`);
    if (sandboxed) {
      const bash = await tools.call("bash", {
        command: `echo '{}' > ${path}; rm -f ${path}; echo tried`,
      });
      assertStringIncludes(bash.text, "tried", "the command ran");
      assertStringIncludes(bash.text, "Read-only file system", path);
    }
    assertEquals(await Deno.readTextFile(`${ws.root}/${path}`), before, path);
  }
  // The store's journal files that do not exist yet cannot be planted either.
  const shm = await tools.call("write_file", { path: "state/pins.db-shm", content: "x" });
  assertEquals(shm.code, "permission_denied", shm.text);
  // An ordinary file beside them stays writable: the protection is exact.
  const free = await tools.call("write_file", { path: "state/notes.txt", content: "ok\n" });
  assertEquals(free.isError, false, free.text);
}

Deno.test("the lock, --store (with its journals) and --audit resist write_file, apply_patch and edit", async () => {
  await rewriteTrustFiles(false);
});

Deno.test({
  name: "the lock, --store (with its journals) and --audit resist sandboxed bash too",
  ignore: skipWithoutBwrap(),
  async fn() {
    await rewriteTrustFiles(true);
  },
});

Deno.test("an absent lock cannot be created by the file tools (the next start would read it)", async () => {
  await using ws = await workspaceWithTrustFiles(false);
  await Deno.remove(`${ws.root}/toolroute.lock`);
  await using served = await buildRouter(ws.config);
  const tools = await served.expose();
  const written = await tools.call("write_file", { path: "toolroute.lock", content: LOCK });
  assertEquals(written.code, "permission_denied", written.text);
  const added = await tools.call("apply_patch", {
    patch: "*** Begin Patch\n*** Add File: toolroute.lock\n+{}\n*** End Patch\n",
  });
  assertEquals(added.code, "permission_denied", added.text);
  assertEquals(await Deno.lstat(`${ws.root}/toolroute.lock`).catch(() => undefined), undefined);
});

Deno.test("toolroute flags --explain lists the lock, --store, its journals, --audit and the git directories", async () => {
  await using ws = await workspaceWithTrustFiles(false);
  const { code, out } = await cli([
    "flags",
    "--config",
    `${ws.root}/toolroute.json`,
    "--store",
    `${ws.root}/state/pins.db`,
    "--audit",
    `${ws.root}/audit.jsonl`,
    "--explain",
  ]);
  assertEquals(code, 0, out);
  assertStringIncludes(out, `  ${ws.root}/toolroute.lock`);
  assertMatch(out, /Protected the same way \(serve writes and trusts them.*\): 5 files/);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    assertStringIncludes(out, `  ${ws.root}/state/pins.db${suffix}\n`);
  }
  assertStringIncludes(out, `  ${ws.root}/audit.jsonl`);
  assert(out.includes("every git directory"), out);
});

Deno.test("with a folder per user, --store and --audit inside a user's folder resist that user's file tools", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_trust_users_" }));
  try {
    const config = {
      workspace: "work/{user}",
      users: { TOKEN_A: { id: "alice" }, TOKEN_B: { id: "bob" } },
      expose: { builtins: ["write_file", "apply_patch", "edit"] },
    };
    await Deno.writeTextFile(`${root}/toolroute.json`, JSON.stringify(config));
    // The operator's mistake this guards: the trust files placed inside a user's own folder.
    await Deno.mkdir(`${root}/work/alice/state`, { recursive: true });
    await Deno.writeTextFile(`${root}/work/alice/state/pins.db`, "pins\n");
    await Deno.writeTextFile(`${root}/work/alice/audit.jsonl`, '{"outcome":"ok"}\n');
    await using served = await buildRouter(
      resolveConfig(config, { path: `${root}/toolroute.json`, cwd: root }),
      {
        trustFiles: trustFiles({
          store: `${root}/work/alice/state/pins.db`,
          audit: `${root}/work/alice/audit.jsonl`,
        }),
      },
    );
    const tools = await served.expose("alice");
    for (const path of ["state/pins.db", "state/pins.db-wal", "audit.jsonl"]) {
      const written = await tools.call("write_file", { path, content: "{}" });
      assertEquals(written.code, "permission_denied", `write_file ${path}: ${written.text}`);
    }
    assertEquals(await Deno.readTextFile(`${root}/work/alice/state/pins.db`), "pins\n");
    // The user's own files stay writable: the protection is exact.
    const free = await tools.call("write_file", { path: "state/notes.txt", content: "ok\n" });
    assertEquals(free.isError, false, free.text);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
