/**
 * The messages a new user meets first, each with its text and exit code: an MCP client's own
 * config file, a tool whose server is down, a port in use, an unset variable, and relative stdio
 * paths in a config file.
 *
 * @module
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { ensureDir } from "@std/fs";
import { join } from "@std/path";
import { loadConfig } from "../../../src/deno/cli/load_config.ts";
import { runCli } from "../../../src/deno/cli/run_cli.ts";

const REPO = new URL("../../..", import.meta.url).pathname;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (line: string) => out.push(line), err: (l: string) => err.push(l) },
  };
}

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_first_" }));
  return Object.assign(new String(dir) as unknown as string, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  });
}

async function writeJson(path: string, value: unknown): Promise<string> {
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2));
  return path;
}

/** A loopback port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("a Claude Desktop config is taken as it is: its own keys are ignored with one warning", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, "claude_desktop_config.json"), {
    mcpServers: { search: { url: "http://127.0.0.1:9/mcp" } },
    globalShortcut: "Ctrl+Space",
    preferences: { menuBarEnabled: false },
  });
  const { out, err, io } = capture();
  assertEquals(await runCli(["flags", "--config", path], io), 0, err.join("\n"));
  assertEquals(err, [
    `toolroute: warning: ignoring "globalShortcut", "preferences" in "${path}": read as an MCP ` +
    `client's config (Claude Desktop, Cursor, Cline), of which toolroute uses only "mcpServers"`,
  ]);
  assertStringIncludes(out.join("\n"), "--allow-net=127.0.0.1:9");
});

Deno.test("toolroute.json stays strict: an unknown key is an error (exit 2), also beside mcpServers", async () => {
  await using dir = await tempDir();
  const named = await writeJson(join(`${dir}`, "toolroute.json"), {
    mcpServers: {},
    globalShortcut: "Ctrl+Space",
  });
  const mixed = await writeJson(join(`${dir}`, "mcp.json"), {
    mcpServers: {},
    expose: { builtins: [] },
    exposee: {},
  });
  for (const path of [named, mixed]) {
    const { err, io } = capture();
    assertEquals(await runCli(["flags", "--config", path], io), 2);
    assertMatch(
      err.join("\n"),
      /^toolroute: Invalid config ".*":\n {2}- \(root\): Unrecognized key/,
    );
  }
});

Deno.test("a call to a tool whose server is down names the server and its connection error (exit 1)", async () => {
  await using dir = await tempDir();
  const port = closedPort();
  const path = await writeJson(join(`${dir}`, "toolroute.json"), {
    workspace: ".",
    mcpServers: { down: { url: `http://127.0.0.1:${port}/mcp` } },
  });
  const { out, err, io } = capture();
  assertEquals(await runCli(["call", "--config", path, "down_echo", "{}"], io), 1);
  assertMatch(out.join("\n"), /^Unknown tool "down_echo"/);
  assertEquals(err.length, 1, err.join("\n"));
  assertMatch(
    err[0],
    /^toolroute: MCP server "down" is not available, so its tools are not listed: .*(refused|connect)/i,
  );
  assertStringIncludes(err[0], `127.0.0.1:${port}`);
});

Deno.test("serve --http on a port in use exits 2 and names the address", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, "toolroute.json"), { workspace: "." });
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const { err, io } = capture();
  const code = await runCli(
    ["serve", "--config", path, "--http", `127.0.0.1:${port}`, "--allow-excess"],
    io,
  );
  assertEquals(code, 2, err.join("\n"));
  const last = err.at(-1) ?? "";
  assertMatch(
    last,
    new RegExp(
      `^toolroute: Cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use; ` +
        `stop the program using it or pass another port, e\\.g\\. --http 127\\.0\\.0\\.1:\\d+$`,
    ),
  );
});

Deno.test("an unset variable names the file, the JSON path and the variable, each quoted once (exit 2)", async () => {
  await using dir = await tempDir();
  const variable = "TOOLROUTE_FIRST_CONTACT_UNSET";
  assertEquals(Deno.env.get(variable), undefined);
  const path = await writeJson(join(`${dir}`, "mcp.json"), {
    mcpServers: {
      github: {
        url: "http://127.0.0.1:9/mcp",
        headers: { Authorization: `Bearer \${${variable}}` },
      },
    },
  });
  const { err, io } = capture();
  assertEquals(await runCli(["tools", "--config", path], io), 2);
  assertEquals(err, [
    `toolroute: Cannot expand config "${path}": variable "${variable}" (used at ` +
    `mcpServers.github.headers.Authorization) is not set; set it in the environment toolroute runs in`,
  ]);
});

Deno.test("relative stdio command, args and cwd resolve against the config file's folder", async () => {
  await using dir = await tempDir();
  const folder = join(`${dir}`, "conf");
  await ensureDir(join(folder, "data"));
  await Deno.writeTextFile(join(folder, "data", "notes.txt"), "notes\n");
  // The server starts only when its relative argument is found: from the config's folder.
  await Deno.writeTextFile(
    join(folder, "server.sh"),
    `#!/bin/sh
[ -f "$1" ] || { echo "no $1 in $(pwd)" >&2; exit 3; }
exec "${Deno.execPath()}" run --no-prompt --config "${REPO}deno.json" "${REPO}tests/_fixtures/stdio_server.ts"
`,
  );
  await Deno.chmod(join(folder, "server.sh"), 0o755);
  const path = await writeJson(join(folder, "mcp.json"), {
    mcpServers: {
      // Unsandboxed on purpose: server.sh runs files of this checkout its command line does
      // not name (a sandbox would not show them); this is about resolving relative paths.
      local: { command: "./server.sh", args: ["data/notes.txt"], sandbox: "none" },
      elsewhere: { command: "deno", cwd: "data" },
    },
  });
  const config = await loadConfig(path, { cwd: `${dir}` });
  assertEquals(config.mcpServers.local, {
    command: join(folder, "server.sh"),
    args: ["data/notes.txt"],
    cwd: folder,
    sandbox: "none",
  });
  assertEquals(config.mcpServers.elsewhere, { command: "deno", cwd: join(folder, "data") });

  // The process's own directory is elsewhere (the repository): the server still starts.
  const justLocal = await writeJson(join(folder, "local.json"), {
    mcpServers: { local: { command: "./server.sh", args: ["data/notes.txt"], sandbox: "none" } },
  });
  assert(Deno.cwd() !== folder);
  const { out, err, io } = capture();
  assertEquals(await runCli(["tools", "--config", justLocal], io), 0, err.join("\n"));
  assertMatch(out.join("\n"), /\becho\b/);
});
