import { assert, assertMatch } from "@std/assert";
import { demoMcpStdio } from "../../examples/demo_mcp_stdio.ts";

Deno.test({
  name: "demoMcpStdio() shows an unprivileged stdio child, a crash, a respawn, and cleans up",
  // No network: the child runs from the local Deno cache.
  // bash and bwrap: the child runs in its sandbox where bubblewrap is installed.
  permissions: {
    run: [Deno.execPath(), "bash", "bwrap"],
    read: true,
    write: true,
    env: true,
    net: false,
  },
  async fn() {
    const lines: string[] = [];
    await demoMcpStdio((line) => lines.push(line));
    const text = lines.join("\n");
    assertMatch(text, /"env":\{"NOTES_OWNER":"alice"\}/);
    assertMatch(text, /exposed: crash, note, notes, peek/);
    assertMatch(
      text,
      /the child has no -A\s+\| peek\s+\| ok\s+\| \d+ ms\s+\| cannot read .*NotCapable/,
    );
    assertMatch(text, /crashes mid-call\s+\| crash \| error upstream_unavailable/);
    assertMatch(text, /a fresh child, empty memory \| notes \| ok\s+\| \d+ ms\s+\| call the bank/);
    const pids = [...text.matchAll(/\(pid (\d+)\)/g)].map((m) => m[1]);
    // Two children (the respawn's memory is empty, above); in its sandbox each child has a pid
    // namespace of its own, so the two may show the same pid.
    assert(pids.length === 2, `two children: ${pids}`);
  },
});
