import { assert, assertEquals, assertRejects } from "@std/assert";
import { fileURLToPath as fromFileUrl } from "node:url";
import { Client } from "../../../src/core/mcp/mcp_sdk.ts";
import { callMcpTool } from "../../core/mcp/_call_mcp_tool.ts";
import { ToolError } from "../../../src/core/tool_error.ts";
import { processAlive as alive } from "./_process_alive.ts";
import { DenoStdioClientTransport } from "../../../src/deno/mcp/stdio_client_transport.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { ToolRouter } from "../../../mod.ts";

const FIXTURE = fromFileUrl(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
const fixture = { command: Deno.execPath(), args: ["run", FIXTURE] };
// For the tests of the host-side child itself (its host pid, Deno's permission flags on it, a
// wrapper's grandchild, a connect deadline shorter than a sandbox's start): unsandboxed on
// purpose. The sandboxed server has tests of its own (stdio_sandbox_test.ts).
const hostFixture = { ...fixture, sandbox: "none" as const };

async function connect(
  transport: DenoStdioClientTransport,
): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

function ctx(): { signal: AbortSignal } {
  return { signal: new AbortController().signal };
}

Deno.test("DenoStdioClientTransport lists and calls the tools of a stdio server child", async () => {
  const transport = new DenoStdioClientTransport(fixture);
  const client = await connect(transport);
  const { tools } = await client.listTools();
  assert(tools.some((tool) => tool.name === "echo"));
  assertEquals(
    await callMcpTool(client, { toolName: "add", args: { a: 2, b: 3 }, context: ctx() }),
    "5",
  );
  assertEquals(
    await callMcpTool(client, { toolName: "echo", args: { text: "héllo\nworld" }, context: ctx() }),
    "héllo\nworld",
  );
  await client.close();
});

Deno.test("DenoStdioClientTransport ends a call at once with upstream_unavailable when the child crashes", async () => {
  const transport = new DenoStdioClientTransport(fixture);
  const client = await connect(transport);
  let closed = 0;
  const previous = transport.onclose;
  transport.onclose = () => {
    closed++;
    previous?.();
  };
  const started = performance.now();
  const error = await assertRejects(
    () =>
      callMcpTool(client, { toolName: "crash", args: {}, context: ctx() }, { timeoutMs: 30_000 }),
    ToolError,
  );
  assertEquals(error.code, "upstream_unavailable");
  assert(performance.now() - started < 10_000, "the call ended at the crash, not at its deadline");
  assertEquals(closed, 1);
  await client.close();
  assertEquals(closed, 1, "onclose fires once");
});

Deno.test("DenoStdioClientTransport close() stops the child and leaves no process behind", async () => {
  const transport = new DenoStdioClientTransport(hostFixture);
  const client = await connect(transport);
  const pid = Number(await callMcpTool(client, { toolName: "pid", args: {}, context: ctx() }));
  assertEquals(pid, transport.pid);
  assert(await alive(pid));
  const pending = callMcpTool(client, { toolName: "sleep", args: { ms: 60_000 }, context: ctx() })
    .catch((e) => e);
  await client.close();
  assert(!(await alive(pid)), "the child has exited when close() resolves");
  assertEquals((await pending as ToolError).code, "upstream_unavailable");
});

Deno.test("DenoStdioClientTransport spawns a Deno child without -A: it cannot read outside files", async () => {
  const secret = await Deno.makeTempFile();
  await Deno.writeTextFile(secret, "secret");
  try {
    const client = await connect(new DenoStdioClientTransport(hostFixture));
    assertEquals(
      await callMcpTool(client, { toolName: "read", args: { path: secret }, context: ctx() }),
      "cannot read: NotCapable",
    );
    assertEquals(
      await callMcpTool(client, { toolName: "env", args: { name: "PATH" }, context: ctx() }),
      "cannot read: NotCapable",
    );
    await client.close();
    const allowed = await connect(
      new DenoStdioClientTransport({
        ...hostFixture,
        args: ["run", `--allow-read=${secret}`, FIXTURE],
      }),
    );
    assertEquals(
      await callMcpTool(allowed, { toolName: "read", args: { path: secret }, context: ctx() }),
      "secret",
    );
    await allowed.close();
  } finally {
    await Deno.remove(secret);
  }
});

Deno.test("DenoStdioClientTransport gives the child only the config's env over a minimal set", async () => {
  Deno.env.set("TOOLROUTE_TEST_HOST_SECRET", "leak");
  try {
    const client = await connect(
      new DenoStdioClientTransport({
        ...fixture,
        args: ["run", "--allow-env", FIXTURE],
        env: { MY_TOKEN: "t0k" },
      }),
    );
    assertEquals(
      await callMcpTool(client, { toolName: "env", args: { name: "MY_TOKEN" }, context: ctx() }),
      "t0k",
    );
    assertEquals(
      await callMcpTool(client, {
        toolName: "env",
        args: { name: "TOOLROUTE_TEST_HOST_SECRET" },
        context: ctx(),
      }),
      "(unset)",
    );
    assert(
      (await callMcpTool(client, { toolName: "env", args: { name: "DENO_DIR" }, context: ctx() }))
        .length > 1,
    );
    await client.close();
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_HOST_SECRET");
  }
});

Deno.test("DenoStdioClientTransport answers a message over its size limit with an error, keeping the connection", async () => {
  const client = await connect(new DenoStdioClientTransport(fixture, { maxMessageBytes: 4096 }));
  const error = await assertRejects(
    () => callMcpTool(client, { toolName: "big", args: { chars: 100_000 }, context: ctx() }),
    ToolError,
  );
  assertEquals(error.code, "tool_error");
  assert(error.message.includes("limit of 4096"), error.message);
  assertEquals(
    await callMcpTool(client, { toolName: "echo", args: { text: "still here" }, context: ctx() }),
    "still here",
  );
  await client.close();
});

Deno.test("DenoStdioClientTransport reports a line that is not JSON-RPC and goes on", async () => {
  const transport = new DenoStdioClientTransport(fixture);
  const client = await connect(transport);
  const errors: string[] = [];
  const previous = transport.onerror;
  transport.onerror = (error) => {
    errors.push(error.message);
    previous?.(error);
  };
  assertEquals(
    await callMcpTool(client, { toolName: "garbage", args: {}, context: ctx() }),
    "answered after garbage",
  );
  assert(errors.some((e) => e.includes("malformed message: this is not json")), String(errors));
  await client.close();
});

Deno.test("DenoStdioClientTransport fails a call with a malformed answer at once, keeping the connection", async () => {
  const client = await connect(new DenoStdioClientTransport(fixture));
  const started = performance.now();
  const error = await assertRejects(
    () =>
      callMcpTool(client, { toolName: "malformed", args: {}, context: ctx() }, {
        timeoutMs: 30_000,
      }),
    ToolError,
  );
  assertEquals(error.code, "tool_error");
  assert(error.message.includes("malformed message"), error.message);
  assert(performance.now() - started < 10_000, "failed at once, not at the deadline");
  assertEquals(
    await callMcpTool(client, { toolName: "add", args: { a: 1, b: 1 }, context: ctx() }),
    "2",
  );
  await client.close();
});

Deno.test("DenoStdioClientTransport does not wait for a grandchild that holds the pipes", async () => {
  // A wrapper leaves a background process holding stdout and stderr, then execs the server.
  const wrapped = {
    command: "sh",
    args: ["-c", 'sleep 3 & exec "$0" run --no-prompt "$1"', Deno.execPath(), FIXTURE],
    sandbox: "none" as const,
  };
  const crashing = await connect(new DenoStdioClientTransport(wrapped));
  const started = performance.now();
  const error = await assertRejects(
    () =>
      callMcpTool(crashing, { toolName: "crash", args: {}, context: ctx() }, { timeoutMs: 30_000 }),
    ToolError,
  );
  assertEquals(error.code, "upstream_unavailable");
  assert(performance.now() - started < 2_000, "ended at the crash, not when the grandchild exits");
  await crashing.close();

  const closing = await connect(new DenoStdioClientTransport(wrapped));
  assertEquals(
    await callMcpTool(closing, { toolName: "echo", args: { text: "up" }, context: ctx() }),
    "up",
  );
  const closeStarted = performance.now();
  await closing.close();
  assert(performance.now() - closeStarted < 2_000, "close() did not wait for the grandchild");
});

Deno.test("DenoStdioClientTransport start() rejects clearly when the command does not exist", async () => {
  const transport = new DenoStdioClientTransport({ command: "/nonexistent/toolroute-server" });
  const error = await assertRejects(() => transport.start(), Error);
  assert(error.message.includes('Cannot start stdio server "/nonexistent/toolroute-server"'));
  await assertRejects(() => transport.start(), Error, "already started");
  await transport.close();
});

Deno.test("a stdio server whose command is not on PATH: the error names the command and the PATH it searched", async () => {
  const gateway = createDenoGateway({
    servers: { memory: { command: "toolroute-no-such-server", env: { PATH: "/opt/none/bin" } } },
  });
  try {
    const { missing } = await new ToolRouter({ gateway }).expose({ mcpServers: ["memory"] });
    assertEquals(missing.length, 1);
    const reason = missing[0].reason;
    assert(reason.includes('"toolroute-no-such-server"'), reason);
    assert(reason.includes("was not found") && reason.includes("PATH=/opt/none/bin"), reason);
    assert(reason.includes('"command"'), reason);
  } finally {
    await gateway.close();
  }
});

Deno.test({
  name:
    "a stdio server whose program is not found because the host may not read PATH names --allow-env=PATH,HOME",
  // Everything a stdio server needs except reading the host's PATH and HOME: what `npx` servers
  // met with the docs' old sample flags (`sh: 1: mcp-server-memory: not found`).
  permissions: { run: ["sh"], env: ["LANG", "TERM", "USER", "LOGNAME", "SHELL"] },
  async fn() {
    const gateway = createDenoGateway({
      // The program a wrapper (npx, a shell script) starts by name, found only through PATH.
      servers: {
        memory: { command: "sh", args: ["-c", "read request; exec toolroute-mcp-server-memory"] },
      },
    });
    try {
      const { missing } = await new ToolRouter({ gateway }).expose({ mcpServers: ["memory"] });
      assertEquals(missing.length, 1);
      const reason = missing[0].reason;
      // The wrapper really ran and failed to find its program (the shell's own message)...
      assert(/code 127\): .*toolroute-mcp-server-memory: not found/.test(reason), reason);
      // ...and the error says why and what to add.
      assert(reason.includes("ran without the host's PATH and HOME"), reason);
      assert(reason.includes("--allow-env=PATH,HOME"), reason);
    } finally {
      await gateway.close();
    }
  },
});

Deno.test("a stdio child that prints nothing before the deadline gets a message naming what it was given", async () => {
  const gateway = createDenoGateway({
    servers: { silent: { command: "sleep", args: ["30"], sandbox: "none" } },
    connectTimeoutMs: 300,
    stdio: { killGraceMs: 100 },
  });
  try {
    const { missing } = await new ToolRouter({ gateway }).expose({ mcpServers: ["silent"] });
    assertEquals(missing.length, 1);
    const reason = missing[0].reason;
    assert(
      reason.includes('Connecting to MCP server "silent" did not finish within 300 ms'),
      reason,
    );
    assert(reason.includes('raise "connectTimeoutMs"'), reason);
    assert(reason.includes('the stdio server "sleep" printed nothing'), reason);
    assert(reason.includes("PATH") && reason.includes('"env"'), reason);
  } finally {
    await gateway.close();
  }
});

Deno.test("DenoStdioClientTransport allows a first start that may download more time, once", async () => {
  const config = { command: Deno.execPath(), args: ["run", FIXTURE, "--first-connect"] };
  const first = new DenoStdioClientTransport(config, { firstConnectTimeoutMs: 45_000 });
  assertEquals(first.connectTimeoutMs, 45_000);
  const client = await connect(first);
  await client.close();
  assertEquals(new DenoStdioClientTransport(config).connectTimeoutMs, undefined);
  assertEquals(new DenoStdioClientTransport({ command: "node" }).connectTimeoutMs, undefined);
});

Deno.test("DenoStdioClientTransport hands on every progress report that arrives in one chunk with its answer", async () => {
  // The SDK drops a call's progress handler when its answer arrives and runs a notification's
  // handler a microtask later: read in one chunk, the last reports were lost (the conformance
  // suite's tools-call-with-progress saw 2 of 3 under load).
  const client = await connect(new DenoStdioClientTransport(fixture));
  for (const count of [3, 20]) {
    const reports: number[] = [];
    const text = await callMcpTool(client, {
      toolName: "progress_burst",
      args: { count },
      context: {
        ...ctx(),
        onProgress: (report) => void reports.push(report.progress),
      },
    });
    assertEquals(text, `${count} reports`);
    assertEquals(reports, Array.from({ length: count }, (_, i) => i + 1));
  }
  await client.close();
});
