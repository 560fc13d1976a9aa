/**
 * A sandboxed stdio server that leaves processes behind: a detached (`setsid`) child of a child
 * that exited, sleeping. When the server's session is reported ended (the server exited by
 * itself, or the gateway closed it), none of its processes may still run: the next start checks
 * the server's cache for links and binds it, and a leftover could swap a folder in between.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { dirname, fromFileUrl, join } from "@std/path";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { ToolRouter } from "../../../mod.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

const FIXTURE = fromFileUrl(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
const REPO = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");

/**
 * The host's pids whose command line holds `marker` (through `ps`: Deno reads `/proc` only with
 * every permission, and the suite runs with fewer).
 */
function hostPids(marker: string): number[] {
  const { stdout } = new Deno.Command("ps", {
    args: ["-eww", "-o", "pid=,stat=,args="],
    stdin: "null",
    stderr: "null",
  }).outputSync();
  const found: number[] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    // A zombie has ended: it only waits to be reaped. `ps` itself is not the server.
    if (
      match && match[3].includes(marker) && !match[2].startsWith("Z") && !match[3].startsWith("ps ")
    ) {
      found.push(Number(match[1]));
    }
  }
  return found;
}

/** Whether the walker still writes its beat file: it grows by a line per process. */
async function beating(beat: string): Promise<boolean> {
  const before = (await Deno.stat(beat)).size;
  // Long enough for hundreds of the walker's processes, each of which writes a line.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return (await Deno.stat(beat)).size > before;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  assert(check(), what);
}

/** A server whose `leave` tool leaves a detached grandchild sleeping, and `quit` exits. */
async function leaverServer(dir: string): Promise<string> {
  const script = join(dir, "leaver.ts");
  await Deno.writeTextFile(
    script,
    `${
      (await Deno.readTextFile(FIXTURE)).split("const server = new McpServer")[0]
        .replaceAll('"../../src/', `"${REPO}/src/`)
    }
const server = new McpServer({ name: "leaver", version: "1.0.0" });
server.registerTool("leave", {
  description: "leaves a detached grandchild",
  inputSchema: z.object({ marker: z.string(), beat: z.string() }),
}, async ({ marker, beat }) => {
  // A detached (setsid) shell starts a process and exits; each process starts the next and
  // ends at once: one always runs, under a new pid, so a kill by listed pids misses the newest.
  // Each writes a line to the beat file: the file grows while the walk goes on.
  const walker = 'w() { echo >> "$1"; ( w "$1" ) & exit 0; }; ( w "$1" ) &';
  await new Deno.Command("bash", {
    args: ["-c", walker, marker, beat],
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return { content: [{ type: "text", text: "left" }] };
});
server.registerTool("quit", { description: "exits", inputSchema: z.object({}) }, () => {
  setTimeout(() => Deno.exit(0), 10);
  return new Promise(() => {});
});
await server.connect(new DenoStdioServerTransport());
`,
  );
  return script;
}

for (const ending of ["exits by itself", "is closed by the gateway"] as const) {
  Deno.test({
    name:
      `a sandboxed server that ${ending} leaves no process behind: its detached grandchild is gone when the end is reported`,
    ignore: skipWithoutBwrap(),
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "toolroute_leaver_" });
      const marker = `toolroute-leftover-${crypto.randomUUID()}`;
      const beat = join(dir, "beat");
      await Deno.writeTextFile(beat, "");
      try {
        const script = await leaverServer(dir);
        const gateway = createDenoGateway({
          servers: {
            leaver: {
              command: Deno.execPath(),
              args: ["run", "--frozen", "--config", join(REPO, "deno.json"), "-A", script],
              sandbox: { readOnly: [REPO], roots: [dirname(script)] },
            },
          },
        });
        try {
          const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ["leaver"] });
          assertEquals(tools.missing, []);
          assertEquals(await tools.invoke("leave", { marker, beat }), "left");
          // The leftover really runs after the shell that started it exited: its beat grows.
          await until(() => Deno.statSync(beat).size > 0, "the detached walker started");
          assert(await beating(beat), "the detached walker runs");
          if (ending === "exits by itself") {
            // Its sandbox (bubblewrap, whose command line binds the server's root) runs.
            assert(hostPids(dir).length > 0, "the server's sandbox runs");
            const quit = await tools.call("quit", {});
            assertEquals(quit.code, "upstream_unavailable", quit.text);
            // The server's end is reported (the call failed with it): nothing of it is left,
            // its sandbox neither (the next start may begin at once).
            assertEquals(hostPids(dir), [], "no process of the ended server's sandbox runs");
            assertEquals(hostPids(marker), [], "no process of the ended server runs");
            assertEquals(await beating(beat), false, "no process of the ended server runs");
          }
        } finally {
          await gateway.close();
        }
        assertEquals(hostPids(dir), [], "no process of the closed server's sandbox runs");
        assertEquals(hostPids(marker), [], "no process of the closed server runs");
        assertEquals(await beating(beat), false, "no process of the closed server runs");
      } finally {
        for (const pid of hostPids(marker)) Deno.kill(pid, "SIGKILL");
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
