/**
 * The official MCP Inspector CLI (npm `@modelcontextprotocol/inspector-cli`) against
 * `toolroute serve`, over stdio and over HTTP: a real third-party client, no mocks.
 *
 * The Inspector CLI reads `../package.json` relative to its working directory (a bug of the
 * tool), so it runs in a temporary folder whose parent holds one.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { CLI, exactFlags, makeFixture, startExactServe } from "./_serve_process.ts";

/**
 * Runs one Inspector CLI method. The method's options come first (`--tool-arg` takes several
 * values) and a stdio command comes after `--`, so that the Inspector does not read the
 * command's own flags (such as `--config`) as its own.
 */
async function inspector(cwd: string, target: string[], method: string[]): Promise<unknown> {
  const output = await new Deno.Command("npx", {
    args: ["-y", "@modelcontextprotocol/inspector-cli@1.0.3", "--cli", ...method, ...target],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (output.code !== 0) {
    throw new Error(`Inspector CLI failed: ${stdout}${new TextDecoder().decode(output.stderr)}`);
  }
  return JSON.parse(stdout.slice(stdout.indexOf("{")));
}

async function checkTarget(cwd: string, target: string[]): Promise<void> {
  const [list, read, echo] = await Promise.all([
    inspector(cwd, target, ["--method", "tools/list"]),
    inspector(cwd, target, [
      "--tool-arg",
      "path=hello.txt",
      "--tool-name",
      "read_file",
      "--method",
      "tools/call",
    ]),
    inspector(cwd, target, [
      "--tool-arg",
      "text=hi",
      "--tool-name",
      "echo",
      "--method",
      "tools/call",
    ]),
  ]) as [{ tools: { name: string }[] }, { content: { text: string }[] }, {
    content: { text: string }[];
  }];
  assertEquals(list.tools.map((tool) => tool.name), ["echo", "read_file"]);
  assertEquals(JSON.parse(read.content[0].text).content, "hello from the workspace\n");
  assertEquals(echo.content[0].text, "hi");
}

Deno.test("the MCP Inspector CLI lists and calls tools of toolroute serve over stdio and HTTP", async () => {
  const remote = await startMcpTestServer({
    tools: (server) => {
      server.registerTool("echo", { description: "Echoes text" }, () => ({
        content: [{ type: "text", text: "hi" }],
      }));
    },
  });
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    mcpServers: { remote: { url: remote.url } },
  });
  const cwd = `${fixture.dir}/inspector`;
  await Deno.mkdir(cwd);
  await Deno.writeTextFile(`${fixture.dir}/package.json`, '{ "name": "tmp", "version": "1.0.0" }');
  try {
    const stdioFlags = await exactFlags(["--config", fixture.config]);
    await checkTarget(cwd, [
      "--",
      Deno.execPath(),
      "run",
      ...stdioFlags,
      CLI,
      "serve",
      "--stdio",
      "--config",
      fixture.config,
    ]);
    await using serve = await startExactServe(fixture.config);
    await checkTarget(cwd, [
      serve.url,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${serve.token}`,
    ]);
  } finally {
    await remote.close();
  }
});
