import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { startupFiles } from "../../../src/deno/cli/startup_files.ts";
import { resolveConfig } from "../../../src/deno/cli/load_config.ts";
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { CLI, cli } from "./_serve_process.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

/** A workspace that holds its own config, a module importing a local file, and Deno config. */
async function workspaceWithStartupFiles(bash: unknown = { sandbox: "bwrap" }) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_startup_" }));
  const files: Record<string, string> = {
    "toolroute.json": JSON.stringify({
      workspace: ".",
      modules: ["tools/mod.ts"],
      bash,
      expose: { builtins: ["read_file", "write_file", "apply_patch", "bash"] },
    }),
    "tools/mod.ts": `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
import { greeting } from "./lib.ts";
export const hello = defineTool({
  name: "hello",
  description: "Greets",
  input: z.object({}),
  run: () => greeting,
});
`,
    "tools/lib.ts": `export { greeting } from "./deeper/words.ts";\n`,
    "tools/deeper/words.ts": `export const greeting = "hi";\n`,
    "deno.json": JSON.stringify({ importMap: "./import_map.json" }),
    "import_map.json": JSON.stringify({ imports: {} }),
    "deno.lock": JSON.stringify({ version: "5" }),
    "tools/deno.jsonc": "// the tools' own settings\n{}\n",
    "package.json": JSON.stringify({ name: "ws", private: true }),
    "toolroute.schema.json": "{}",
    "notes.txt": "free to edit\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return {
    root,
    files,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const KINDS = [
  "toolroute.json",
  "tools/mod.ts",
  "tools/lib.ts",
  "tools/deeper/words.ts",
  "deno.json",
  "import_map.json",
  "deno.lock",
  "tools/deno.jsonc",
  "package.json",
  "toolroute.schema.json",
];

Deno.test("startupFiles() lists the config, each module's local import graph and the Deno config", async () => {
  await using ws = await workspaceWithStartupFiles();
  await Deno.writeTextFile(
    `${ws.root}/tools/deeper/words.ts`,
    `import "@lib/mapped.ts";\nconst later = () => import("../dynamic.ts");\n` +
      `const worker = new URL("./worker.ts", import.meta.url);\nexport const greeting = "hi";\n`,
  );
  await Deno.writeTextFile(
    `${ws.root}/import_map.json`,
    JSON.stringify({ imports: { "@lib/": "./libdir/" } }),
  );
  for (const path of ["libdir/mapped.ts", "tools/dynamic.ts", "tools/deeper/worker.ts"]) {
    await Deno.mkdir(`${ws.root}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${ws.root}/${path}`, "export {};\n");
  }
  const config = resolveConfig(JSON.parse(ws.files["toolroute.json"]), {
    path: `${ws.root}/toolroute.json`,
    cwd: ws.root,
  });
  const { files, candidates } = await startupFiles(config, { cwd: ws.root });
  const inside = files.filter((f) => f.startsWith(`${ws.root}/`)).map((f) =>
    f.slice(ws.root.length + 1)
  );
  assertEquals(
    inside.sort(),
    [...KINDS, "libdir/mapped.ts", "tools/deeper/worker.ts", "tools/dynamic.ts"].sort(),
  );
  assert(candidates.includes(`${ws.root}/deno.jsonc`), "an absent deno.jsonc is a candidate");
  assert(!inside.includes("notes.txt"));
});

Deno.test("startupFiles() refuses an import graph over its bound", async () => {
  await using ws = await workspaceWithStartupFiles();
  const config = resolveConfig(JSON.parse(ws.files["toolroute.json"]), {
    path: `${ws.root}/toolroute.json`,
    cwd: ws.root,
  });
  let message = "";
  await startupFiles(config, { cwd: ws.root, maxFiles: 3 }).catch((e) => message = e.message);
  assertStringIncludes(message, "more than 3 local files");
});

async function rewriteEachKind(bashSandboxed: boolean) {
  await using ws = await workspaceWithStartupFiles(bashSandboxed ? { sandbox: "bwrap" } : false);
  const config = resolveConfig(JSON.parse(ws.files["toolroute.json"]), {
    path: `${ws.root}/toolroute.json`,
    cwd: ws.root,
  });
  await using served = await buildRouter(config);
  const tools = await served.expose();
  let attempts = 0;
  for (const path of KINDS) {
    const before = await Deno.readTextFile(`${ws.root}/${path}`);
    const written = await tools.call("write_file", { path, content: "evil" });
    attempts++;
    assertEquals(written.isError, true, `write_file ${path}: ${written.text}`);
    assertMatch(written.text, /read-only|protected/);
    const patched = await tools.call("apply_patch", {
      patch: `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`,
    });
    attempts++;
    assertEquals(patched.isError, true, `apply_patch ${path}: ${patched.text}`);
    if (bashSandboxed) {
      const bash = await tools.call("bash", {
        command: `echo evil >> ${path}; echo evil > ${path}; rm -f ${path}; mv ${path} ${path}.x`,
      });
      attempts++;
      assertStringIncludes(bash.text, "Read-only file system", path);
    }
    assertEquals(await Deno.readTextFile(`${ws.root}/${path}`), before, path);
  }
  if (bashSandboxed) {
    // Renaming a parent directory away and putting another file at the path fails too.
    const swap = await tools.call("bash", {
      command: "mv tools tools.old; mv tools/deeper tools/d2; mkdir -p tools; " +
        "echo evil > tools/mod.ts; ls",
    });
    assertStringIncludes(swap.text, "Device or resource busy");
    assertEquals(await Deno.readTextFile(`${ws.root}/tools/mod.ts`), ws.files["tools/mod.ts"]);
    assertEquals(
      await Deno.readTextFile(`${ws.root}/tools/deeper/words.ts`),
      ws.files["tools/deeper/words.ts"],
    );
  }
  // An ordinary file stays writable: the protection is exact.
  const free = await tools.call("write_file", { path: "notes.txt", content: "edited\n" });
  assertEquals(free.isError, false, free.text);
  assertEquals(await Deno.readTextFile(`${ws.root}/notes.txt`), "edited\n");
  const sub = await tools.call("write_file", { path: "sub/deno.json", content: "{}" });
  assertEquals(sub.isError, false, "a deno.json elsewhere is not what serve reads");
  assert(attempts >= KINDS.length * 2);
}

Deno.test("serve's start-up files resist write_file and apply_patch (RT-2)", async () => {
  await rewriteEachKind(false);
});

Deno.test({
  name: "serve's start-up files resist write_file, apply_patch and sandboxed bash (RT-2)",
  ignore: skipWithoutBwrap(),
  async fn() {
    await rewriteEachKind(true);
  },
});

Deno.test("toolroute flags --explain lists the start-up files; serve warns once when bash is unsandboxed", async () => {
  await using ws = await workspaceWithStartupFiles({ sandbox: "none" });
  const { code, out } = await cli(["flags", "--config", `${ws.root}/toolroute.json`, "--explain"]);
  assertEquals(code, 0);
  for (const kind of KINDS) assertStringIncludes(out, `  ${ws.root}/${kind}\n`.trimEnd(), kind);
  assertMatch(
    out,
    /Protected from write_file, apply_patch, edit and the bash sandbox .*: 10 files/,
  );
  const serve = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      CLI,
      "serve",
      "--stdio",
      "--allow-excess",
      "--config",
      `${ws.root}/toolroute.json`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(serve.stderr);
  const warnings = stderr.split("\n").filter((line) =>
    line.includes("warning: bash runs unsandboxed")
  );
  assertEquals(warnings.length, 1, stderr);
  assertStringIncludes(warnings[0], "rewriting the 10 files serve runs or reads at its next start");
});

Deno.test("a start-up file reached through a symlinked folder is protected under its real path too", async () => {
  await using ws = await workspaceWithStartupFiles(false);
  await Deno.symlink("tools", `${ws.root}/link`);
  const config = resolveConfig({
    workspace: ".",
    modules: ["link/mod.ts"],
    expose: { builtins: ["write_file"] },
  }, { path: `${ws.root}/toolroute.json`, cwd: ws.root });
  await using served = await buildRouter(config);
  const tools = await served.expose();
  for (const path of ["link/mod.ts", "tools/mod.ts", "tools/lib.ts"]) {
    const written = await tools.call("write_file", { path, content: "evil" });
    assertEquals(written.isError, true, `${path}: ${written.text}`);
  }
  assertEquals(await Deno.readTextFile(`${ws.root}/tools/mod.ts`), ws.files["tools/mod.ts"]);
});

Deno.test("serve warns when a start-up file has another hard link (a command could rewrite it through it)", async () => {
  await using ws = await workspaceWithStartupFiles(false);
  await Deno.link(`${ws.root}/tools/lib.ts`, `${ws.root}/notes_lib.ts`);
  const config = resolveConfig(JSON.parse(ws.files["toolroute.json"]), {
    path: `${ws.root}/toolroute.json`,
    cwd: ws.root,
  });
  assertEquals((await startupFiles(config, { cwd: ws.root })).linked, [`${ws.root}/tools/lib.ts`]);
  const serve = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      CLI,
      "serve",
      "--stdio",
      "--allow-excess",
      "--config",
      `${ws.root}/toolroute.json`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  assertStringIncludes(
    new TextDecoder().decode(serve.stderr),
    `warning: ${ws.root}/tools/lib.ts has more than one hard link`,
  );
});
