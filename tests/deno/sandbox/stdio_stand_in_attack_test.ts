/**
 * A hostile stdio server against the way its pipes reach it: the host's pipes, taken from a
 * stopped stand-in through `/proc/<pid>/fd` at the launch and handed to the supervisor, which
 * hands them to the server. The server looks for those pipes in every other process it can see
 * (the stand-in, the supervisor, bubblewrap, another server), stops and kills its supervisor,
 * and stops reading its stdin while the host writes to it.
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import {
  fixtureReadOnly,
  hostileServer,
  type HostileWorld,
  plantHostileWorld,
  type SandboxSetting,
} from "./_hostile_world.ts";

type Outcome = Record<string, unknown> & { ok: boolean; error?: string };
type Seen = Record<string, { cmdline: string; fds: Record<string, string> }>;

const sandboxed = (world: HostileWorld): SandboxSetting => ({
  roots: [world.roots],
  readOnly: fixtureReadOnly(),
});

/** The server with a marker among its arguments, to find its processes on the host. */
function marked(sandbox: SandboxSetting, marker: string): McpStdioServerConfig {
  const config = hostileServer(sandbox);
  return { ...config, args: [...config.args!, marker] };
}

async function gatewayOf(servers: Record<string, McpStdioServerConfig>, timeoutMs = 60_000) {
  const gateway = createDenoGateway({ servers, requestTimeoutMs: timeoutMs });
  const ids = Object.keys(servers);
  const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ids });
  assertEquals(tools.missing, [], JSON.stringify(gateway.status()));
  const run = (server: string) => async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await tools.call(ids.length > 1 ? `${server}_${tool}` : tool, args);
    if (result.isError) return { ok: false, error: `${result.code}: ${result.text}` } as Outcome;
    return JSON.parse(result.text) as Outcome;
  };
  return { gateway, run };
}

/** The host's processes whose command line holds the marker. */
async function hostProcesses(marker: string): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid,args"] }).output();
  return new TextDecoder().decode(ps.stdout).split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

/** The supervisor: the host's deno, bound into the sandbox, running the supervisor's script. */
const isSupervisor = (cmdline: string) => cmdline.startsWith("/.toolroute/deno run ");

/** Every descriptor link of another process it could read that leads to a pipe. */
function foreignPipes(seen: Seen): string[] {
  return Object.entries(seen).flatMap(([pid, { cmdline, fds }]) =>
    Object.entries(fds)
      .filter(([, target]) => target.startsWith("pipe:"))
      .map(([fd, target]) => `${pid} (${cmdline}) fd ${fd}: ${target}`)
  );
}

Deno.test({
  name:
    "a hostile stdio server finds no pipe of the host, the supervisor or another server in the processes it sees",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const marker = `stand-in-attack-${crypto.randomUUID().slice(0, 8)}`;
    for (const mode of ["unconfined", "sandboxed"] as const) {
      const sandbox = mode === "unconfined" ? "none" : sandboxed(world);
      const { gateway, run } = await gatewayOf({
        a: marked(sandbox, marker),
        b: marked(sandbox, marker),
      });
      try {
        // Unconfined it sees every process of the machine: the other server's and this test's.
        const outcome = await run("a")(
          "foreign_descriptors",
          mode === "unconfined" ? { match: marker } : {},
        );
        assertEquals(outcome.ok, true, JSON.stringify(outcome));
        const seen = outcome.seen as Seen;
        const pipes = foreignPipes(seen);
        if (mode === "unconfined") {
          // The attack works where nothing confines it: the other server's pipes, and the host's.
          const other = Object.values(seen).find((entry) =>
            entry.cmdline.includes(marker) &&
            Object.values(entry.fds).some((t) => t.startsWith("pipe:"))
          );
          assert(other !== undefined, `the other server's pipes: ${JSON.stringify(seen)}`);
          assert(pipes.length > 0, "pipes of other processes");
          continue;
        }
        // It sees its sandbox's other processes (bubblewrap's init, the supervisor)…
        assertNotEquals(Object.keys(seen), [], JSON.stringify(seen));
        const supervisor = Object.entries(seen).find(([, entry]) => isSupervisor(entry.cmdline));
        assert(
          supervisor !== undefined,
          `the supervisor is in its sandbox: ${JSON.stringify(seen)}`,
        );
        // …and tried the supervisor's descriptors (its frames to the host, the server's pipes):
        // every one refused, as the supervisor is not dumpable.
        const refused = Object.values(supervisor![1].fds);
        assert(refused.length >= 6, JSON.stringify(supervisor));
        assert(
          refused.every((target) => target.startsWith("PermissionDenied")),
          JSON.stringify(supervisor),
        );
        // Of all the pipes of other processes, it reads one only: bubblewrap's init's stderr,
        // the session's (where bubblewrap's own errors reach the host, which reads it to its end
        // and keeps its last 4 KiB as the reason of a session that ends). Neither the host, the
        // stand-in, the supervisor's frames nor server b's pipes.
        assertEquals(pipes.length, 1, JSON.stringify(pipes));
        assertMatch(pipes[0], /^1 \(bwrap .*\) fd 2: pipe:/);
        assert(!Object.values(seen).some((entry) => entry.cmdline.includes("kill -STOP")));
        assertEquals(Object.keys(seen).includes(String(Deno.pid)), false);
      } finally {
        await gateway.close();
      }
    }
  },
});

Deno.test({
  name:
    "a hostile stdio server that stops or kills its supervisor cannot keep the gateway's close waiting, nor outlive it",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const marker = `supervisor-attack-${crypto.randomUUID().slice(0, 8)}`;
    for (const signal of ["SIGSTOP", "SIGKILL"]) {
      const { gateway, run } = await gatewayOf({
        evil: marked(sandboxed(world), marker),
        good: hostileServer(sandboxed(world)),
      });
      try {
        const seen = (await run("evil")("foreign_descriptors")).seen as Seen;
        const [supervisor] = Object.entries(seen)
          .filter(([, entry]) => isSupervisor(entry.cmdline));
        assert(supervisor !== undefined, JSON.stringify(seen));
        const sent = await run("evil")("signal", { pid: Number(supervisor[0]), signal });
        // The signal reached the supervisor (same user, same PID namespace): the attack ran.
        assertEquals(sent.ok, true, JSON.stringify(sent));
        if (signal === "SIGSTOP") {
          // The process it stopped is its own parent, the supervisor; it still answers (its
          // pipes pass no supervisor).
          const after = await run("evil")("whoami");
          assertEquals(after.ppid, Number(supervisor[0]), JSON.stringify(after));
        }
        // The other server, in a sandbox of its own, still answers.
        assertEquals((await run("good")("whoami")).ok, true);
      } finally {
        // Before, the close waited for ever: its signals went through the supervisor alone.
        await gateway.close();
      }
      // Closing ends the server, even one whose supervisor is stopped: nothing is left behind.
      assertEquals(await hostProcesses(marker), [], `after ${signal}`);
    }
  },
});

Deno.test({
  name:
    "a hostile stdio server that never reads its stdin again does not block the host, and ends with the gateway",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const marker = `frozen-${crypto.randomUUID().slice(0, 8)}`;
    for (const mode of ["unconfined", "sandboxed"] as const) {
      const sandbox = mode === "unconfined" ? "none" : sandboxed(world);
      const { gateway, run } = await gatewayOf({
        frozen: marked(sandbox, marker),
        other: hostileServer(sandbox),
      }, 3_000);
      try {
        assertEquals((await run("frozen")("freeze")).ok, true);
        // Large requests fill the pipe to its stdin, which nobody reads any more: each write of
        // the host waits, each call ends at its deadline.
        const text = "x".repeat(900 * 1024);
        const calls = await Promise.all(
          [1, 2, 3, 4].map(() => run("frozen")("write_file", { path: `/tmp/${marker}.txt`, text })),
        );
        for (const call of calls) assertMatch(call.error ?? "", /^timeout/, JSON.stringify(call));
        assert(
          (await hostProcesses(marker)).length > 0,
          "the frozen server still runs (it never ends by itself)",
        );
        // The host goes on: another server answers meanwhile.
        assertEquals((await run("other")("whoami")).ok, true, mode);
      } finally {
        await gateway.close();
      }
      // And the gateway's close ends the frozen server.
      assertEquals(await hostProcesses(marker), [], mode);
    }
  },
});
