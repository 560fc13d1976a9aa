// The session's warm shell against the cold `bash -c` it stands in for, command by command, in
// real sessions (bubblewrap): with and without the limits' cgroup and prefix.
import { assert, assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { SandboxSession } from "../../../../../src/deno/builtins/sandbox/sandbox_session.ts";
import {
  DEFAULT_LIMITS,
  limitPrefix,
  withResourceLimits,
} from "../../../../../src/deno/builtins/sandbox/resource_limits.ts";
import { skipWithoutBwrap } from "../../../../_helpers/bwrap.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  warm: boolean;
  timedOut: boolean;
}

interface Setup {
  session: SandboxSession;
  workspace: string;
  prefix: string;
  env: Record<string, string>;
}

async function run(
  setup: Setup,
  command: string,
  warm: boolean,
  overrides: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const decoders = [new TextDecoder(), new TextDecoder()];
  const answer = await setup.session.request(
    {
      op: "exec",
      command,
      prefix: setup.prefix,
      cwd: overrides.cwd ?? setup.workspace,
      env: overrides.env ?? setup.env,
      timeoutMs: overrides.timeoutMs ?? 10_000,
      warm,
    },
    undefined,
    {
      timeoutMs: 20_000,
      onTimeout: () => new Error("timeout") as never,
      onStream: (stream, bytes) =>
        stream === 1
          ? stdout += decoders[0].decode(bytes, { stream: true })
          : stderr += decoders[1].decode(bytes, { stream: true }),
    },
  );
  const exit = answer.header.exit as { code: number; warm: boolean; timedOut: boolean };
  assert(exit !== undefined, JSON.stringify(answer.header));
  return { code: exit.code, stdout, stderr, warm: exit.warm, timedOut: exit.timedOut };
}

/** Runs `fn` in a session with the limits' cgroup and prefix, and in one with the prefix only. */
async function inSessions(fn: (setup: Setup) => Promise<void>): Promise<void> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_" }));
  try {
    for (const limited of [true, false]) {
      const session = await SandboxSession.start({
        mounts: { workspace: { source: workspace, dest: workspace }, readOnlyRoots: [] },
        path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        startTimeoutMs: 10_000,
        wrap: limited ? withResourceLimits(DEFAULT_LIMITS) : undefined,
      });
      try {
        await fn({
          session,
          workspace,
          prefix: limitPrefix(DEFAULT_LIMITS, 10_000),
          env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", HOME: workspace },
        });
      } finally {
        await session.close();
      }
    }
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

// Commands whose every observable (exit code, stdout, stderr) is the same warm and cold, but for
// process ids (and pipe inode numbers), which differ between any two runs.
const SAME = [
  "true",
  "exit 3",
  "false",
  "kill -9 $$",
  "kill -TERM $$",
  "sh -c 'kill -SEGV $$'; echo after $?",
  "cat; echo cat=$?; read line; echo read=$? line=[$line]",
  'echo "$0" "$#" "$*"',
  'echo "[$_]"',
  "echo $SECONDS",
  "echo $LINENO\necho $LINENO\n\necho $LINENO",
  'echo "$BASH_EXECUTION_STRING"',
  "echo $- $BASH_SUBSHELL $SHLVL",
  "[ $$ = $BASHPID ] && echo self; [ $PPID = $(ps -o ppid= -p $$ | tr -d ' ') ] && echo parent",
  "for f in /proc/$$/fd/*; do echo ${f##*/} $(readlink $f | tr -d 0-9); done",
  "env | sort",
  "declare -p | grep -Ev '^declare [-a-zA-Z]+ (BASHPID|BASH_COMMAND|EPOCHREALTIME|EPOCHSECONDS|" +
  "RANDOM|SRANDOM|SECONDS|BASH_LINENO|LINENO|_)\\b'; set +o; shopt -p; declare -F; alias",
  "ulimit -a; umask; cat /proc/$$/cgroup",
  "pwd; echo $PWD $OLDPWD; cd /tmp && pwd",
  "echo 'héllo wörld € 😀 ✓'; x='日本語'; echo ${#x}; printf '\\x01\\x7f\\t|\\r\\n'",
  "cat <<'EOF'\n  a \\ b $x\n\tc\nEOF\nfor i in 1 2; do\n  echo \"$i\"\ndone\n",
  "trap 'echo bye' EXIT; echo hi",
  "set -e; false; echo not here",
  "return 4; echo $?",
  'f() { echo "$FUNCNAME" "${BASH_SOURCE[*]}"; caller; }; f',
  "echo out; echo err >&2; exit 7",
  "sleep 5 & echo $!>/dev/null; echo started",
  "exec 3>&1; echo via3 >&3",
  "",
  "   \n# only a comment\n",
  "echo 'trailing newlines'\n\n\n",
  "echo a \\\n  b",
  "nosuchcommand_x; echo $?",
];

// Syntax errors: same exit code (2), same output and lines; the message names `eval` where a
// cold shell names `-c`, and quotes a first line without the cold shell's cgroup entry and limits
// prefix (documented in docs/sandbox.md).
const SYNTAX = ["if", "echo before\nif then fi", ")", "echo 'unterminated", "f() {"];

function normalized(run: Run): Omit<Run, "warm"> {
  const strip = (text: string) =>
    text.replaceAll(/\b\d{2,}\b/g, "N").replaceAll(": eval: line", ": -c: line")
      .replaceAll(/`(\{ echo 0 > .*?\}; )?(ulimit [^;]*; )?/g, "`");
  return {
    code: run.code,
    stdout: strip(run.stdout),
    stderr: strip(run.stderr),
    timedOut: run.timedOut,
  };
}

Deno.test({
  name:
    "the warm shell runs commands as a cold bash -c does: exit codes, signals, stdin at EOF, $0, variables, limits, output",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      await run(setup, "true", true); // Starts the first warm shell.
      let taken = 0;
      for (const command of [...SAME, ...SYNTAX]) {
        const cold = await run(setup, command, false);
        const warm = await run(setup, command, true);
        assertEquals(cold.warm, false);
        assert(warm.warm, `not run warm: ${JSON.stringify(command)}`);
        taken++;
        assertEquals(normalized(warm), normalized(cold), JSON.stringify(command));
      }
      assertEquals(taken, SAME.length + SYNTAX.length);
      // Sanity of a few: the cases test what they say.
      assertEquals((await run(setup, "kill -9 $$", true)).code, 137);
      assertEquals((await run(setup, "if", true)).code, 2);
      assertMatch((await run(setup, "echo $0", true)).stdout, /^(\/usr\/bin\/)?bash\n$/);
      assertEquals((await run(setup, "cat; echo $?", true)).stdout, "0\n");
      assertEquals((await run(setup, "readlink /proc/$$/fd/0", true)).stdout, "/dev/null\n");
    });
  },
});
