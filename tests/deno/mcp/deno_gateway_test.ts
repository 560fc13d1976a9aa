import { assert, assertEquals, assertNotEquals } from "@std/assert";
import { fileURLToPath } from "node:url";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig, McpTransport } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { processAlive as alive } from "./_process_alive.ts";
import { DenoStdioClientTransport } from "../../../src/deno/mcp/stdio_client_transport.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

const FIXTURE = fileURLToPath(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
const stdio = (extra: string[] = []): McpStdioServerConfig => ({
  command: Deno.execPath(),
  args: ["run", ...extra, FIXTURE],
});
// The tests that follow a child by its host pid run it unsandboxed on purpose: a sandboxed
// server's pid is its own namespace's (its ending is tested in stdio_sandbox_test.ts).
const hostStdio = (): McpStdioServerConfig => ({ ...stdio(), sandbox: "none" });

/** A factory that records its children, to prove a respawn never overlaps the old child. */
function trackedFactory() {
  const stats = { pids: [] as number[], overlaps: 0 };
  const factory = (config: McpStdioServerConfig | { url: string }): McpTransport | undefined => {
    if (!("command" in config)) return undefined;
    const transport = new DenoStdioClientTransport(config);
    const start = transport.start.bind(transport);
    transport.start = async () => {
      if ((await Promise.all(stats.pids.map(alive))).some(Boolean)) stats.overlaps++;
      await start();
      stats.pids.push(transport.pid!);
    };
    return transport;
  };
  return { stats, factory };
}

Deno.test("createDenoGateway() lists and calls the tools of a stdio server next to an HTTP one", async () => {
  const http = await startMcpTestServer();
  await using gateway = createDenoGateway({
    servers: { files: stdio(), remote: { url: http.url } },
  });
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["files", "remote"] });
  assertEquals(toolSet.missing, []);
  assertEquals(await toolSet.invoke("files_add", { a: 1, b: 2 }), "3");
  assertEquals(await toolSet.invoke("remote_add", { a: 2, b: 2 }), "4");
  const status = gateway.status().find((s) => s.id === "files");
  assertEquals(status?.state, "ready");
  assertEquals(status?.transport, "custom");
  await gateway.close();
  await http.close();
});

Deno.test("createDenoGateway() ends a call with upstream_unavailable at once when the child crashes, then respawns it once", async () => {
  const { stats, factory } = trackedFactory();
  await using gateway = createDenoGateway({
    servers: { files: hostStdio() },
    transportFactory: factory,
    requestTimeoutMs: 30_000,
    reconnect: { initialDelayMs: 10 },
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["files"] });
  const firstPid = Number(await toolSet.invoke("pid", {}));
  assert(await alive(firstPid));
  const started = performance.now();
  const crashed = await toolSet.call("crash", {});
  assertEquals(crashed.code, "upstream_unavailable");
  assert(performance.now() - started < 10_000, "ended at the crash, not at the deadline");
  const secondPid = Number(await toolSet.invoke("pid", {}));
  assertNotEquals(secondPid, firstPid);
  assert(await alive(secondPid));
  assert(!(await alive(firstPid)));
  assertEquals(stats.pids, [firstPid, secondPid], "respawned once");
  assertEquals(stats.overlaps, 0, "never two children at once");
  await gateway.close();
  assert(!(await alive(secondPid)), "close() leaves no child behind");
});

Deno.test("createDenoGateway() close() stops every stdio child, including busy ones", async () => {
  // Two Deno children start at once: under a gate's load that can take longer than the default.
  const gateway = createDenoGateway({
    servers: { a: hostStdio(), b: hostStdio() },
    connectTimeoutMs: 60_000,
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["a", "b"] });
  assertEquals(toolSet.missing, []);
  const pids = [
    Number(await toolSet.invoke("a_pid", {})),
    Number(await toolSet.invoke("b_pid", {})),
  ];
  for (const pid of pids) assert(await alive(pid), `child ${pid} runs`);
  const busy = toolSet.call("a_sleep", { ms: 60_000 });
  await gateway.close();
  assertEquals((await busy).isError, true);
  for (const pid of pids) assert(!(await alive(pid)), `child ${pid} exited`);
});

Deno.test("createDenoGateway() gives each user's stdio child its own env and no host variable", async () => {
  Deno.env.set("TOOLROUTE_TEST_HOST_SECRET", "leak");
  await using gateway = createDenoGateway();
  try {
    for (const user of ["alice", "bob"]) {
      gateway.addUserServer(user, "vault", {
        ...stdio(["--allow-env"]),
        env: { TOKEN: `token-${user}` },
      });
    }
    const router = new ToolRouter({ gateway });
    for (const user of ["alice", "bob"]) {
      const toolSet = await router.expose({ mcpServers: ["vault"], userId: user });
      // The child echoes its TOKEN: the connection's own env value comes back redacted (another
      // user's value is no secret of this connection and would come back as it is).
      assertEquals(await toolSet.invoke("env", { name: "TOKEN" }), "[redacted]");
      assertEquals(await toolSet.invoke("env", { name: "TOOLROUTE_TEST_HOST_SECRET" }), "(unset)");
    }
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_HOST_SECRET");
  }
});

Deno.test("createDenoGateway() runs a Deno stdio child without -A: it cannot read the host's files", async () => {
  const secret = await Deno.makeTempFile();
  await Deno.writeTextFile(secret, "secret");
  try {
    await using gateway = createDenoGateway({ servers: { files: stdio() } });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["files"] });
    assertEquals(await toolSet.invoke("read", { path: secret }), "cannot read: NotCapable");
  } finally {
    await Deno.remove(secret);
  }
});

Deno.test("createDenoGateway() reports a stdio server that cannot start as missing, keeping the others", async () => {
  await using gateway = createDenoGateway({
    servers: { broken: { command: "/nonexistent/mcp-server" }, files: stdio() },
    reconnect: { initialDelayMs: 1, maxAttemptsPerCall: 1 },
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["broken", "files"] });
  assertEquals(toolSet.missing.map((m) => m.name), ["broken"]);
  assert(toolSet.missing[0].reason.length > 0);
  assertEquals(await toolSet.invoke("echo", { text: "ok" }), "ok");
  assertEquals(gateway.status().find((s) => s.id === "broken")?.state, "failed");
});

Deno.test("createDenoGateway() cuts a 50 MB stdio result to maxResultChars, head, tail and a handle", async () => {
  await using gateway = createDenoGateway({ servers: { files: stdio() }, maxResultChars: 1000 });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["files"] });
  const result = await toolSet.call("big", { chars: 50_000_000 });
  assertEquals(result.isError, false);
  assert(result.text.length <= 1000, `${result.text.length} characters`);
  assert(result.text.startsWith("xxx") && result.text.endsWith("xxx"));
  assert(result.resultHandle !== undefined);
});

Deno.test("createDenoGateway() ends a hanging stdio call at its deadline; other servers answer meanwhile", async () => {
  await using gateway = createDenoGateway({ servers: { slow: stdio(), fast: stdio() } });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["slow", "fast"] });
  const hanging = toolSet.call("slow_sleep", { ms: 60_000 }, { timeoutMs: 500 });
  assertEquals(await toolSet.invoke("fast_echo", { text: "meanwhile" }), "meanwhile");
  const result = await hanging;
  assertEquals(result.code, "timeout");
  assertEquals(await toolSet.invoke("slow_echo", { text: "still up" }), "still up");
});

Deno.test("createDenoGateway() reports why a stdio server exited at start, from its stderr", async () => {
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(script, 'throw new Error("API_KEY is not set");\n');
  try {
    await using gateway = createDenoGateway({
      servers: { bad: { command: Deno.execPath(), args: ["run", script] } },
      reconnect: { maxAttemptsPerCall: 1 },
    });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["bad"] });
    assertEquals(toolSet.missing.length, 1);
    const { reason } = toolSet.missing[0];
    assert(reason.includes("exited (code 1)") && reason.includes("API_KEY is not set"), reason);
    assert(!reason.includes("\x1b["), "no terminal colours");
    assert(gateway.status()[0].lastError?.includes("API_KEY is not set"));
  } finally {
    await Deno.remove(script);
  }
});
