import { assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { exists } from "@std/fs";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { DenoStdioClientTransport } from "../../../src/deno/mcp/stdio_client_transport.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { CLI, exactFlags, makeFixture, startExactServe } from "./_serve_process.ts";
import { initializeRequest } from "../../_helpers/initialize_request.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

/** A module with one exposed function tool and one that must never run (it leaves a marker). */
function toolsModule(marker: string): string {
  return `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const shout = defineTool({
  name: "shout",
  description: "Upper-cases text",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text.toUpperCase(),
});
export const secret = defineTool({
  name: "secret",
  description: "Registered in the module, not exposed by the config",
  input: z.object({}),
  run: async () => {
    await Deno.writeTextFile(${JSON.stringify(marker)}, "executed");
    return "leaked";
  },
});
`;
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("serve --http with exact flags serves only the exposed tools to an SDK client", async () => {
  const remote = await startMcpTestServer();
  await using fixture = await makeFixture();
  const marker = `${fixture.workspace}/secret_ran`;
  await Deno.writeTextFile(`${fixture.dir}/tools.ts`, toolsModule(marker));
  await Deno.writeTextFile(
    fixture.config,
    JSON.stringify({
      workspace: "workspace",
      modules: ["tools.ts"],
      expose: { builtins: ["read_file"], functions: ["shout"] },
      mcpServers: { remote: { url: remote.url } },
    }),
  );
  await using serve = await startExactServe(fixture.config);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
  const { tools } = await client.listTools();
  assertEquals(
    tools.map((tool: { name: string }) => tool.name),
    ["add", "big", "echo", "read_file", "shout", "sleep", "whoami"],
  );
  const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  assertEquals(JSON.parse(text(read)).content, "hello from the workspace\n");
  const echoed = await client.callTool({ name: "echo", arguments: { text: "remote" } });
  assertEquals(text(echoed), "remote");
  assertEquals(text(await client.callTool({ name: "shout", arguments: { text: "a" } })), "A");
  for (const name of ["secret", "write_file", "bash"]) {
    const refused = await client.callTool({ name, arguments: {} });
    assertEquals(refused.isError, true, name);
    assertMatch(text(refused), /Unknown tool/);
  }
  await client.close();
  assertEquals(await exists(marker), false);
  assertEquals(await serve.stop(), 0);
  assertMatch(serve.stderr(), /toolroute: call read_file builtin user=- \d+ ms ok/);
  assertMatch(serve.stderr(), /toolroute: call secret - user=- \d+ ms error unknown_tool/);
  await remote.close();
});

Deno.test("serve --http answers 403 to a foreign Host or Origin and 401 without a token", async () => {
  await using fixture = await makeFixture({ users: { TOKEN_ALICE: { id: "alice" } } });
  await using serve = await startExactServe(fixture.config, {
    TOKEN_ALICE: "s3cret",
  });
  const post = (headers: Record<string, string>) => fetch(initializeRequest(serve.url, headers));
  const port = Number(new URL(serve.url).port);
  assertEquals(await rawStatus(port, "evil.example.com"), 403);
  assertEquals(await rawStatus(port, `localhost:${port}`), 401);
  for (
    const [headers, status] of [
      [{ origin: "http://evil.example.com", authorization: "Bearer s3cret" }, 403],
      [{}, 401],
      [{ authorization: "Bearer wrong" }, 401],
      [{ authorization: "Bearer s3cret", origin: "http://localhost:3000" }, 200],
    ] as const
  ) {
    const response = await post(headers);
    assertEquals(response.status, status, JSON.stringify(headers));
    await response.body?.cancel();
  }
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(serve.url), {
      requestInit: { headers: { authorization: "Bearer s3cret" } },
    }),
  );
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool: { name: string }) => tool.name), [
    "apply_patch",
    "edit",
    "glob",
    "grep",
    "read_file",
    "write_file",
  ]);
  await client.close();
  assertEquals(await serve.stop(), 0);
});

Deno.test("serve --stdio with exact flags answers an SDK client and logs only to stderr", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const flags = await exactFlags(["--config", fixture.config]);
  const transport = new DenoStdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...flags, CLI, "serve", "--stdio", "--config", fixture.config],
    // toolroute serve under test runs as the host runs it, not in a server sandbox.
    sandbox: "none",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool: { name: string }) => tool.name), ["read_file"]);
  const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  assertStringIncludes(text(read), "hello from the workspace");
  const outside = await client.callTool({
    name: "read_file",
    arguments: { path: "../toolroute.json" },
  });
  assertEquals(outside.isError, true);
  await client.close();
  assertMatch(transport.stderrTail, /toolroute: call read_file builtin user=- \d+ ms ok/);
});

Deno.test("serve reports progress notifications while a long bash command runs", async () => {
  await using fixture = await makeFixture({
    bash: { sandbox: "none" },
    expose: { builtins: ["bash"] },
  });
  const flags = await exactFlags(["--config", fixture.config]);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new DenoStdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...flags, CLI, "serve", "--stdio", "--config", fixture.config],
      // toolroute serve under test runs as the host runs it, not in a server sandbox.
      sandbox: "none",
    }),
  );
  const progress: string[] = [];
  const result = await client.callTool(
    { name: "bash", arguments: { command: "sleep 1.3; echo finished" } },
    { onprogress: (report: { message?: string }) => progress.push(report.message ?? "") },
  );
  assertStringIncludes(text(result), "finished");
  assertMatch(progress[0] ?? "", /bash is still running/);
  await client.close();
});

Deno.test("serve refuses to start under -A and prints the exact flags", async () => {
  await using fixture = await makeFixture();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "serve", "--stdio", "--config", fixture.config],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 2);
  assertEquals(output.stdout.length, 0);
  assertStringIncludes(
    stderr,
    `run deno with exactly: --allow-read=${fixture.workspace},${fixture.config} --allow-write=${fixture.workspace} --no-prompt`,
  );
  assertEquals(stderr.includes("    at "), false);
});

/** Sends a request with a chosen Host header over raw TCP (fetch sets Host itself). */
async function rawStatus(port: number, host: string): Promise<number> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const body = "{}";
  await connection.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ));
  let text = "";
  for await (const chunk of connection.readable) text += new TextDecoder().decode(chunk);
  return Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
}

Deno.test("serve passes a remote server's tool-list change on to its clients", async () => {
  const remote = await startMcpTestServer();
  try {
    await using fixture = await makeFixture({
      expose: { builtins: [] },
      mcpServers: { remote: { url: remote.url } },
    });
    await using serve = await startExactServe(fixture.config);
    const client = new Client({ name: "test", version: "1.0.0" });
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve());
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
    assertEquals((await client.listTools()).tools.length, 5);
    await remote.changeTools((server) => {
      server.registerTool("fresh", { description: "Added later" }, () => ({
        content: [{ type: "text", text: "new" }],
      }));
    });
    await changed.promise;
    const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    assertEquals(names.includes("fresh"), true);
    await client.close();
    assertEquals(await serve.stop(), 0);
    assertMatch(serve.stderr(), /mcp server "remote" tools changed \(6 tools\)/);
  } finally {
    await remote.close();
  }
});

Deno.test("serve starts when a configured MCP server is down, reports it and serves the rest", async () => {
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    mcpServers: { down: { url: "http://127.0.0.1:1/mcp" } },
  });
  await using serve = await startExactServe(fixture.config);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool: { name: string }) => tool.name), ["read_file"]);
  await client.close();
  assertEquals(await serve.stop(), 0);
  assertMatch(serve.stderr(), /not exposed: mcpServers "down"/);
});
