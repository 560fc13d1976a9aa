import { assertEquals, assertRejects } from "@std/assert";
import { flagsCommand } from "../../../src/deno/cli/flags_command.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { makeFixture } from "./_serve_process.ts";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (line: string) => out.push(line), err: (l: string) => err.push(l) },
  };
}

Deno.test("flagsCommand() prints one line of least-privilege flags for a workspace", async () => {
  const { out, err, io } = capture();
  assertEquals(await flagsCommand({ workspace: "/srv/toolroute-ws" }, io), 0);
  assertEquals(out, ["--allow-read=/srv/toolroute-ws --allow-write=/srv/toolroute-ws --no-prompt"]);
  assertEquals(err, []);
});

Deno.test("flagsCommand() --http adds listening: host and port, or the host alone for port 0", async () => {
  const { out, io } = capture();
  await flagsCommand({ workspace: "/srv/ws", http: "127.0.0.1:8787" }, io);
  await flagsCommand({ workspace: "/srv/ws", http: "127.0.0.1:0" }, io);
  await flagsCommand({ workspace: "/srv/ws", http: "9000" }, io);
  assertEquals(out.map((line) => line.split(" ").find((f) => f.startsWith("--allow-net"))), [
    "--allow-net=127.0.0.1:8787",
    "--allow-net=127.0.0.1",
    "--allow-net=127.0.0.1:9000",
  ]);
});

Deno.test({
  name: "flagsCommand() lists the config's variables without reading any of them",
  permissions: { read: true, write: true, env: false },
  async fn() {
    await using fixture = await makeFixture({
      bash: { sandbox: "none", env: ["PATH"] },
      mcpServers: {
        remote: {
          url: "http://127.0.0.1:9000/mcp",
          headers: { authorization: "Bearer ${TOOLROUTE_TEST_UNSET_TOKEN}" },
        },
      },
    });
    const { out, io } = capture();
    assertEquals(await flagsCommand({ config: fixture.config }, io), 0);
    assertEquals(out[0].split(" "), [
      `--allow-read=${fixture.workspace},${fixture.config},${lockBeside(fixture.config)},${
        namesBeside(fixture.config)
      }`,
      // The lock is written by `toolroute lock`: the same flags run it. The last known tool lists
      // are kept beside it (names across restarts).
      `--allow-write=${fixture.workspace},${lockBeside(fixture.config)},${
        namesBeside(fixture.config)
      }`,
      "--allow-run=bash",
      "--allow-env=PATH,TOOLROUTE_TEST_UNSET_TOKEN",
      "--allow-net=127.0.0.1:9000",
      "--no-prompt",
    ]);
  },
});

Deno.test("flagsCommand() --workspace overrides the config's workspace", async () => {
  await using fixture = await makeFixture();
  const { out, io } = capture();
  await flagsCommand({ config: fixture.config, workspace: "/srv/other" }, io);
  assertEquals(out[0].split(" ").slice(0, 2), [
    `--allow-read=/srv/other,${fixture.config}`,
    "--allow-write=/srv/other",
  ]);
});

Deno.test("flagsCommand() throws a UsageError for a bad address or a missing config", async () => {
  const { out, io } = capture();
  await assertRejects(
    () => flagsCommand({ workspace: "/srv/ws", http: "127.0.0.1:99999" }, io),
    UsageError,
    'Invalid --http address "127.0.0.1:99999"',
  );
  await assertRejects(
    () => flagsCommand({ config: "/nonexistent/toolroute.json" }, io),
    UsageError,
    "the file does not exist",
  );
  assertEquals(out, []);
});

/** The tool lock file beside a config: read too when the config has remote servers. */
function lockBeside(config: string): string {
  return config.replace(/[^/]+$/, "toolroute.lock");
}

/** The last known tool lists beside a config: read and written with remote servers, no store. */
function namesBeside(config: string): string {
  return config.replace(/[^/]+$/, "toolroute.names.json");
}
