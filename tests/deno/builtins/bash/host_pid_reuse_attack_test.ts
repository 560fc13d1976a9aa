// A background command's watchdog ends its group once the host is gone. It knew the host by its
// pid alone (`kill -0`): when the kernel gave that pid to a new process after the host was
// killed, the watchdog took it for the host and the command ran on with no host. Here the pid is
// reused on purpose, in a PID namespace of the test's own (root only: writing `ns_last_pid`).
import { assertEquals } from "@std/assert";
import { bashFixture } from "../_bash_fixture.ts";

const HOST = new URL("../_host_exit_main.ts", import.meta.url).pathname;

// In the namespace: the host starts a background `sleep` through the bash tool and is killed;
// the next pid the kernel gives is the host's (a `sleep` of ours); then the background command
// has five seconds (the watchdog looks every second) to be ended.
const SCRIPT = `
deno=$1 host=$2 ws=$3 tag=$4
"$deno" run -A --no-prompt "$host" "$ws" none "echo \\$\\$ > '$ws/bg.pid'; exec sleep $tag" wait > "$ws/out" &
h=$!
for i in $(seq 300); do [ -s "$ws/bg.pid" ] && grep -q started "$ws/out" && break; sleep 0.1; done
b=$(< "$ws/bg.pid")
kill -KILL $h; wait $h 2>/dev/null
echo $((h - 1)) > /proc/sys/kernel/ns_last_pid
sleep 60 & r=$!
echo "host=$h reused=$r"
for i in $(seq 50); do kill -0 $b 2>/dev/null || { echo ended; exit 0; }; sleep 0.1; done
echo "still running"
`;

Deno.test({
  name:
    "a background command ends after its host is killed, even when the host's pid is given to another process at once",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using fx = await bashFixture();
    const tag = `77.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
    const { stdout, stderr } = await new Deno.Command("unshare", {
      args: [
        "--pid",
        "--fork",
        "--mount-proc",
        "bash",
        "-c",
        SCRIPT,
        "-",
        Deno.execPath(),
        HOST,
        fx.workspace,
        tag,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(stdout).trim().split("\n");
    const [host, reused] = lines[0].match(/host=(\d+) reused=(\d+)/)!.slice(1);
    // The attack ran: the host's pid belonged to another process while the command lived.
    assertEquals(reused, host, new TextDecoder().decode(stderr));
    assertEquals(lines[1], "ended");
  },
});
