// A command of the session writes frames into the pipes between the host and its supervisor,
// reached through /proc/<pid>/fd of the sandbox's processes that hold them (bubblewrap's init,
// pid 1, and the supervisor, all threads): a request (an `exec` with a deadline of weeks, no
// limits prefix, that beats into a file) into their stdin, answers into their stdout. Before
// the fix (s24a) the injected `exec` ran after the command's end, unlisted, without the CPU
// rlimit and with the reap of other commands' leftovers held off; a forged answer ended the
// session. Now the pipes are on no descriptor of pid 1 and the supervisor is not dumpable.
import { assert, assertEquals } from "@std/assert";
import { makeFixture, sandboxedTools } from "../builtins/_fixture.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

// The sandbox's holders of the host's pipes: pid 1 and the supervisor (its command line starts
// with the deno bound inside), each thread; prints how many descriptors it wrote a frame into
// and how many it tried. `$1`: the frame's JSON, `$2`: the descriptor.
const FORGE = `forge() {
  n=\${#1} tried=0 wrote=0
  hex=$(printf '\\\\x%02x\\\\x%02x\\\\x%02x\\\\x%02x' $((n>>24&255)) $((n>>16&255)) $((n>>8&255)) $((n&255)))
  for p in /proc/[0-9]*; do
    [ "\${p#/proc/}" = $$ ] && continue
    case "\${p#/proc/}:$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in 1:*|*:/.toolroute/deno\\ *) ;; *) continue;; esac
    for fd in $p/fd/$2 $p/task/*/fd/$2; do
      tried=$((tried+1))
      printf "$hex\\\\x00\\\\x00\\\\x00\\\\x00%s" "$1" 2>/dev/null > $fd && wrote=$((wrote+1))
    done
  done
  echo "tried=$tried wrote=$wrote"
}
`;

Deno.test({
  name:
    "a request a command writes into its supervisor's input through /proc never runs, and forged answers never reach the host",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await using sandboxed = await sandboxedTools(f, ["bash"]);
    const { tools } = sandboxed;
    const run = async (command: string) => {
      const result = await tools.call("bash", { command });
      assert(!result.isError, result.text);
      return JSON.parse(result.text) as { stdout: string; exitCode: number };
    };
    assertEquals((await run("echo session > /tmp/mark; echo ok")).stdout, "ok\n");
    const request = JSON.stringify({
      id: 1_000_000,
      op: "exec",
      command: "while :; do echo x >> beat; sleep 0.05; done >/dev/null 2>&1",
      cwd: f.workspace,
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 2_000_000_000,
    });
    const injected = await run(`${FORGE}forge '${request}' 0`);
    const tried = Number(/tried=(\d+)/.exec(injected.stdout)?.[1] ?? 0);
    console.log(`injection: ${injected.stdout.trim()}`);
    // The attack ran: pid 1 and the supervisor's threads were found and written to.
    assert(tried >= 2, injected.stdout);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = await run("sleep 0.5; cat beat 2>/dev/null | wc -l; cat /tmp/mark");
    assertEquals(after.stdout, "0\nsession\n", "the injected request ran");
    const listed = JSON.parse((await tools.call("bash", { action: "list" })).text);
    assertEquals(listed.processes, []);

    // Answers for the ids a session uses first, into every holder's stdout: the command's own
    // result comes back, and the session (its /tmp) lives on.
    const forged = await run(
      `${FORGE}for id in $(seq 1 40); do forge '{"id":'$id',"exit":{"code":7}}' 1; done | sort | uniq -c | head -3; echo done`,
    );
    assert(/tried=[1-9]/.test(forged.stdout), forged.stdout);
    assert(forged.stdout.endsWith("done\n") && forged.exitCode === 0, forged.stdout);
    assertEquals((await run("cat /tmp/mark")).stdout, "session\n");
  },
});
