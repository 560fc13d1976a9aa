import { testSession } from "../_test_session.ts";
// The session's warm shell against the cold `bash -c` it stands in for, command by command, in
// real sessions (bubblewrap): with and without the limits' cgroup and prefix.
import { assert, assertEquals, assertMatch } from "@std/assert";
import type { SandboxSession } from "../../../../../src/deno/builtins/sandbox/sandbox_session.ts";
import { DEFAULT_LIMITS } from "../../../../../src/deno/builtins/context_limits.ts";
import {
  limitPrefix,
  withResourceLimits,
} from "../../../../../src/deno/builtins/sandbox/resource_limits.ts";
import { skipWithoutBwrap } from "../../../../_helpers/bwrap.ts";
import { leftovers, uniqueSleep } from "../../_bash_fixture.ts";
import { warmShells } from "../../../../_helpers/warm_shells.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  warm: boolean;
  timedOut: boolean;
  cancelled: boolean;
}

interface Setup {
  session: SandboxSession;
  workspace: string;
  prefix: string;
  env: Record<string, string>;
  /** The last command asked for the warm shell: the next one may be started after it. */
  warmAfter?: boolean;
}

/**
 * Waits (at most about 2 s, then goes on) until a warm shell for `cwd` and `env` waits in the
 * session: the supervisor starts the next one in idle time, once no request has come for a moment
 * after a command that asked for it, so a command sent at once would find none. Through the
 * host's /proc, read by a child (the sandbox binds the workspace at its own path).
 */
async function warmReady(setup: Setup, cwd: string, env: Record<string, string>): Promise<void> {
  if (setup.warmAfter !== true) return;
  setup.warmAfter = false;
  const environ = Object.entries(env).map(([name, value]) => `${name}=${value}`).sort().join("\n");
  for (let i = 0; i < 80; i++) {
    const ready = (await warmShells()).some((shell) =>
      /read -r -N \d+ BASH_EXECUTION_STRING/.test(shell.cmdline) && shell.cwd === cwd &&
      shell.environ.toSorted().join("\n") === environ && /^[RS]$/.test(shell.state)
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function run(
  setup: Setup,
  command: string,
  warm: boolean,
  overrides: {
    cwd?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    cancelAfterMs?: number;
  } = {},
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const decoders = [new TextDecoder(), new TextDecoder()];
  if (warm) {
    await warmReady(setup, overrides.cwd ?? setup.workspace, overrides.env ?? setup.env);
  }
  setup.warmAfter = warm;
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
      onId: (id) => {
        if (overrides.cancelAfterMs === undefined) return;
        setTimeout(
          () => setup.session.notify({ op: "cancel", target: id }),
          overrides.cancelAfterMs,
        );
      },
    },
  );
  const exit = answer.header.exit as {
    code: number;
    warm: boolean;
    timedOut: boolean;
    cancelled: boolean;
  };
  assert(exit !== undefined, JSON.stringify(answer.header));
  return {
    code: exit.code,
    stdout,
    stderr,
    warm: exit.warm,
    timedOut: exit.timedOut,
    cancelled: exit.cancelled,
  };
}

/**
 * Runs `fn` in a session with the limits' cgroup and prefix, and (unless `cgroupOnly`: the
 * prefix's process limit does not bind root) in one with the prefix only.
 */
async function inSessions(
  fn: (setup: Setup) => Promise<void>,
  { limits = DEFAULT_LIMITS, cgroupOnly = false } = {},
): Promise<void> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_" }));
  try {
    for (const limited of cgroupOnly ? [true] : [true, false]) {
      const session = await testSession(workspace, {
        wrap: limited ? withResourceLimits(limits) : undefined,
      });
      try {
        // Without a cgroup here, a fork bomb would not be bounded (root): not run.
        if (cgroupOnly && session.limitsKind === "none") return;
        await fn({
          session,
          workspace,
          prefix: limitPrefix(limits, 10_000),
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
  "kill -ABRT $$",
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
    cancelled: run.cancelled,
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
        // A cold command ends the shell that waited beside it: the next one starts after this.
        await run(setup, "true", true);
        const warm = await run(setup, command, true);
        assertEquals(cold.warm, false);
        assert(warm.warm, `not run warm: ${JSON.stringify(command)}`);
        taken++;
        assertEquals(normalized(warm), normalized(cold), JSON.stringify(command));
      }
      assertEquals(taken, SAME.length + SYNTAX.length);
      // Sanity of a few: the cases test what they say.
      assertEquals((await run(setup, "kill -9 $$", true)).code, 137);
      // A shell killed by any signal exits 128 + its number (not 137 for all but seven).
      assertEquals((await run(setup, "kill -ABRT $$", false)).code, 134);
      assertEquals((await run(setup, "kill -XCPU $$", true)).code, 152);
      assertEquals((await run(setup, "sh -c 'kill -BUS $$'", true)).code, 135);
      assertEquals((await run(setup, "if", true)).code, 2);
      assertMatch((await run(setup, "echo $0", true)).stdout, /^(\/usr\/bin\/)?bash\n$/);
      assertEquals((await run(setup, "cat; echo $?", true)).stdout, "0\n");
      assertEquals((await run(setup, "readlink /proc/$$/fd/0", true)).stdout, "/dev/null\n");
    });
  },
});

Deno.test({
  name:
    "a command the warm shell does not fit (over its cap, other environment or directory, a directory replaced) runs cold, and the next that fits runs warm",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      await run(setup, "true", true);
      // Over the cap (64 KiB): cold, and the waiting shell stays for the next.
      const big = await run(setup, `: '${"x".repeat(70_000)}'; echo big`, true);
      assertEquals([big.warm, big.code, big.stdout], [false, 0, "big\n"]);
      assertEquals((await run(setup, "echo small", true)).warm, true);
      // Another environment: cold; the shell started after it has the new one.
      const env = { ...setup.env, EXTRA: "é 1" };
      const other = await run(setup, 'echo "$EXTRA"', true, { env });
      assertEquals([other.warm, other.stdout], [false, "é 1\n"]);
      assertEquals(await run(setup, 'echo "$EXTRA"', true, { env }), { ...other, warm: true });
      assertEquals((await run(setup, 'echo "[$EXTRA]"', true)).stdout, "[]\n");
      // SECONDS from the environment is a cold shell's start value: never warm.
      const seconds = { ...setup.env, SECONDS: "1000" };
      for (let i = 0; i < 2; i++) {
        const timed = await run(setup, "echo $SECONDS", true, { env: seconds });
        assertEquals([timed.warm, timed.stdout], [false, "1000\n"]);
      }
      // Another directory, then the same directory deleted and made again between two commands.
      const sub = `${setup.workspace}/sub`;
      await Deno.mkdir(sub, { recursive: true });
      assertEquals(await run(setup, "pwd", true, { cwd: sub }), {
        code: 0,
        stdout: `${sub}\n`,
        stderr: "",
        warm: false,
        timedOut: false,
        cancelled: false,
      });
      assertEquals((await run(setup, "pwd", true, { cwd: sub })).warm, true);
      await run(setup, "rm -r sub && mkdir sub && touch sub/new", false);
      const replaced = await run(setup, "pwd; ls", true, { cwd: sub });
      assertEquals([replaced.warm, replaced.stdout], [false, `${sub}\nnew\n`]);
      assertEquals((await run(setup, "ls", true, { cwd: sub })).stdout, "new\n");
      // A command with a NUL byte fails to start either way.
      for (const warm of [true, false]) {
        const answer = await setup.session.request(
          {
            op: "exec",
            command: "echo a\0b",
            prefix: setup.prefix,
            cwd: setup.workspace,
            env: setup.env,
            timeoutMs: 5000,
            warm,
          },
          undefined,
          { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never },
        );
        assert(answer.header.error !== undefined, JSON.stringify(answer.header));
      }
      assertEquals((await run(setup, "echo still", true)).stdout, "still\n");
    });
  },
});

Deno.test({
  name:
    "a session without limits prefix or cgroup never runs warm: the prefix and entry are what the warm shell stands on",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_" }));
    const session = await testSession(workspace);
    try {
      const setup = { session, workspace, prefix: "", env: { PATH: "/usr/bin:/bin" } };
      for (let i = 0; i < 3; i++) {
        const result = await run(setup, "echo $i", true);
        assertEquals([result.warm, result.code], [false, 0]);
      }
    } finally {
      await session.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

/** Starts a background process (op `spawn`) and collects its stdout. */
async function background(setup: Setup, command: string) {
  await warmReady(setup, setup.workspace, setup.env);
  let stdout = "";
  const done = setup.session.request(
    { op: "spawn", command, prefix: "", cwd: setup.workspace, env: setup.env },
    undefined,
    {
      timeoutMs: Infinity,
      onTimeout: () => new Error("timeout") as never,
      onStream: (stream, bytes) => stream === 1 && (stdout += new TextDecoder().decode(bytes)),
    },
  );
  return { output: () => stdout, done };
}

// Finds the waiting warm shell (its command line holds the loader; not the finder itself).
const FIND_WARM = `n=BASH_EXECUTION; n=\${n}_STRING; find_warm() { for p in /proc/[0-9]*; do
  [ \${p#/proc/} != $$ ] && tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q "read -r -N [0-9]* $n" &&
  echo \${p#/proc/} && return; done; return 1; }`;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert(check(), what);
}

Deno.test({
  name:
    "a warm shell killed or stopped by a process of the session falls back to the cold path at once, and warm resumes after",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      // Each attack, then a wait until it took effect (a signal is delivered when the shell next
      // runs): dead (a zombie, or reaped), stopped.
      const state = (pattern: string) =>
        `until grep -qs '${pattern}' /proc/$p/status || [ ! -e /proc/$p ]; do sleep 0.01; done`;
      const attacks = [
        [`kill -KILL $p && ${state("^State:.Z")}`, "killed"],
        [`kill -STOP $p && ${state("^State:.T")}`, "stopped"],
      ];
      // Traced: no longer possible, the session's seccomp filter refuses ptrace to every process
      // in it (ptrace_filter_test.ts); the shell's TracerPid check stays for architectures
      // without the filter.
      for (const [attack, word] of attacks) {
        await run(setup, "true", true);
        const attacker = await background(
          setup,
          `${FIND_WARM}; for i in $(seq 200); do p=$(find_warm) && ${attack} && echo ${word} $p && break; sleep 0.02; done; wait`,
        );
        await until(() => attacker.output().includes(word), `the attack ran (${word})`);
        const started = performance.now();
        const after = await run(setup, "echo after", true);
        assertEquals([after.warm, after.code, after.stdout], [false, 0, "after\n"]);
        assert(performance.now() - started < 5000, "it waited for a stopped shell");
        await attacker.done;
        // The attacker's end ends the shell that waited beside it (it could have run its code).
        await run(setup, "true", true);
        assertEquals((await run(setup, "echo again", true)).warm, true);
      }
    });
  },
});

Deno.test({
  name:
    "a warm shell made to run code by a process of the session (its whole read length written into its stdin) ends with that process: no reap spares it",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      // 2000 newlines (past the entry and prefix the shell skips), then a loop that counts in
      // `alive` (ptrace could make it run code as well); the writer ends once the loop runs.
      const hijack = `${FIND_WARM}; p=$(find_warm) || exit 3
        { printf '\\n%.0s' $(seq 2000)
          printf 'n=0; while [ $n -lt 50 ]; do n=$((n+1)); echo $n > alive; sleep 0.1; done\\n'
          head -c 140000 /dev/zero | tr '\\0' '#'; } > /proc/$p/fd/0
        for i in $(seq 100); do [ -s alive ] && break; sleep 0.03; done; echo "ran $(cat alive)"`;
      await run(setup, "rm -f alive", true);
      const attacker = await background(setup, hijack);
      await attacker.done;
      // The attack ran: the warm shell ran the written loop.
      assertMatch(attacker.output(), /^ran [1-9]/);
      // The background process ended (and the reap after it): the loop no longer runs.
      const alive = () => Deno.readTextFile(`${setup.workspace}/alive`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = await alive();
      await new Promise((resolve) => setTimeout(resolve, 500));
      assertEquals(await alive(), before, "the warm shell ran on after its writer's end");
      const next = await run(setup, "echo next", true);
      assertEquals([next.warm, next.stdout], [false, "next\n"]);
      assertEquals((await run(setup, "echo again", true)).warm, true);
    });
  },
});

Deno.test({
  name:
    "a hand-over to a warm shell whose pipe a process of the session filled ends at the command's deadline or cancel, not the host's",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      for (const how of ["deadline", "cancel"]) {
        await run(setup, "true", true);
        // Holds the pipe's read end, makes the shell leave its read (whole length written) and
        // sleep, then fills the pipe: the shell is neither stopped nor traced.
        const attacker = await background(
          setup,
          `${FIND_WARM}; p=$(find_warm) || exit 3; exec 7</proc/$p/fd/0 8>/proc/$p/fd/0
          { printf '\\n%.0s' $(seq 2000); printf 'sleep 60\\n'
            head -c 131072 /dev/zero | tr '\\0' '#'; } >&8
          sleep 0.3; timeout 0.3 cat <&7 >/dev/null; head -c 65536 /dev/zero >&8
          echo filled; sleep 3`,
        );
        await until(() => attacker.output().includes("filled"), "the attack ran (pipe full)");
        const started = performance.now();
        const late = await run(
          setup,
          `echo ran > /tmp/ran-${how}; sleep 5; echo no`,
          true,
          how === "deadline" ? { timeoutMs: 500 } : { cancelAfterMs: 300 },
        );
        assert(performance.now() - started < 3000, `${how}: the hand-over was not given up`);
        assertEquals([late.warm, late.code, late.stdout], [false, 137, ""]);
        assertEquals(how === "deadline" ? late.timedOut : late.cancelled, true);
        await attacker.done;
        // Ended before it started: no part of it ran.
        const trace = await run(setup, `cat /tmp/ran-${how} 2>/dev/null; echo end`, true);
        assertEquals(trace.stdout, "end\n", `${how}: the command ran after its end`);
      }
    });
  },
});

Deno.test({
  name:
    "a warm command's deadline, cancel and background children end as a cold one's, and its processes are in the limits",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      await run(setup, "true", true);
      for (const warm of [false, true]) {
        // The cold commands ended the shell that waited beside them: start the next one.
        if (warm) await run(setup, "true", true);
        const late = await run(setup, "sleep 5; echo no", warm, { timeoutMs: 300 });
        assertEquals(normalized(late), {
          code: 137,
          stdout: "",
          stderr: "",
          timedOut: true,
          cancelled: false,
        });
        if (warm) assertEquals(late.warm, true);
        const cancelled = await run(setup, "sleep 5; echo no", warm, { cancelAfterMs: 200 });
        assertEquals([cancelled.code, cancelled.cancelled, cancelled.stdout], [137, true, ""]);
        const tag = uniqueSleep();
        const children = await run(
          setup,
          `sleep ${tag} & setsid sleep ${tag} >/dev/null 2>&1 & sleep 0.1; pgrep -c -x sleep`,
          warm,
        );
        assertEquals([children.warm, children.stdout], [warm, "2\n"]);
        assertEquals(await leftovers(`sleep ${tag}`), []);
      }
      const limits = await run(setup, "ulimit -u -d -t; cat /proc/$$/cgroup", true);
      assertEquals(limits.warm, true);
      assertMatch(limits.stdout, /^max user processes .*512$/m);
      assertMatch(limits.stdout, /^cpu time .*10$/m);
    });
  },
});

Deno.test({
  name: "a fork bomb run by the warm shell stops at the session's process limit",
  ignore: skipWithoutBwrap(),
  async fn() {
    await inSessions(async (setup) => {
      await run(setup, "true", true);
      const bomb = await run(setup, "b() { b | b & }; b; sleep 2; echo done", true);
      assertEquals(bomb.warm, true);
      assertMatch(bomb.stderr, /fork|Resource temporarily unavailable/);
      assertEquals((await run(setup, "echo ok", true)).stdout, "ok\n");
    }, { limits: { ...DEFAULT_LIMITS, processes: 64, memoryMiB: 512 }, cgroupOnly: true });
  },
});
