import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import type { Client } from "../../../src/core/mcp/mcp_sdk.ts";
import { connectAs } from "../../_helpers/serve_http_in_process.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { cli, makeFixture, startExactServe } from "./_serve_process.ts";

// Security round 3, finding 3: the users of one `serve --http` shared one sandbox session, PID
// namespace, /tmp and background-process table. Bob read the logs of and stopped Alice's jobs,
// Alice's job wrote into Bob's command output, and either could use up the process limit. Each
// test runs the attack for real (two users, their own bearer tokens, bubblewrap), asserts that
// it ran against Alice's own session, and asserts that Bob is out of its reach.

const TOKENS = {
  TOKEN_ALICE: "alice-token-0123456789abcdef",
  TOKEN_BOB: "bob-token-0123456789abcdef",
};
const USERS = { TOKEN_ALICE: { id: "alice" }, TOKEN_BOB: { id: "bob" } };

interface Answer {
  isError: boolean;
  text: string;
  // deno-lint-ignore no-explicit-any
  value: any;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args }, {
    timeout: 60_000,
  });
  const text = (result.content as { text: string }[])[0].text;
  const isError = result.isError === true;
  return { isError, text, value: isError ? undefined : JSON.parse(text) };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

async function waitForFile(path: string): Promise<string> {
  for (;;) {
    const text = await Deno.readTextFile(path).catch(() => undefined);
    if (text !== undefined && text !== "") return text;
    await pause();
  }
}

// Alice's job: every round, for each process whose command line holds the marker VICTIM, write
// into its stdout (through /proc/PID/fd/1, as any process of the same user in the same PID
// namespace may) and note its pid in `hits`; also write into /tmp; then count the round in
// `rounds` (in Alice's folder, which the test reads). The marker is built at run time so that the
// job's own command line does not hold it.
const INJECTOR = [
  "m=VIC; m=${m}TIM; n=0",
  "while :; do",
  '  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$$" ] && continue',
  "    c=$(tr '\\0' ' ' < \"$d/cmdline\" 2>/dev/null) || continue",
  '    [[ $c == *"$m"* ]] || continue',
  '    echo INJECTED-BY-ALICE > "$d/fd/1" 2>/dev/null && echo "$p" >> hits',
  "  done",
  "  echo INJECTED-BY-ALICE > /tmp/shared.txt",
  "  n=$((n+1)); echo $n > rounds.new; mv rounds.new rounds; sleep 0.05",
  "done",
].join("\n");

// Both ways several users may share a serve: a folder each ({user}), and one workspace shared
// on purpose (then only the workspace is shared, never the sandbox).
const MODES = [
  { name: "a folder each", config: { workspace: "work/{user}" } },
  { name: "a shared workspace", config: { workspace: "work", sharedWorkspace: true } },
] as const;

for (const mode of MODES) {
  Deno.test({
    name:
      `serve --http, ${mode.name}: Bob cannot list, read or stop Alice's jobs, and her job, /tmp and processes never reach his commands`,
    ignore: skipWithoutBwrap(),
    fn: () => jobsAndTmpStayApart(mode.config),
  });
}

async function jobsAndTmpStayApart(config: Record<string, unknown>): Promise<void> {
  const perUser = config.workspace === "work/{user}";
  await using fixture = await makeFixture({ ...config, bash: true, users: USERS });
  if (!perUser) await Deno.mkdir(`${fixture.dir}/work`);
  await using serve = await startExactServe(fixture.config, TOKENS);
  const alice = await connectAs(serve.url, TOKENS.TOKEN_ALICE);
  const bob = await connectAs(serve.url, TOKENS.TOKEN_BOB);
  try {
    const aliceDir = perUser ? `${fixture.dir}/work/alice` : `${fixture.dir}/work`;
    const bobDir = perUser ? `${fixture.dir}/work/bob` : `${fixture.dir}/work`;

    // Alice's background job exists and runs: the target of the attack.
    const started = await call(alice, "bash", { action: "start", command: INJECTOR });
    assertEquals(started.isError, false, started.text);
    const id = started.value.processId as string;
    await waitForFile(`${aliceDir}/rounds`);
    assertEquals(
      (await call(alice, "bash", { action: "status", processId: id })).value.running,
      true,
    );

    // The injection works on a command of Alice's own session: her command's output gets the
    // text (it waits until the job noted its pid), so the payload is live.
    const own = await call(alice, "bash", {
      command:
        "bash -c 'while ! grep -qx \"$$\" hits 2>/dev/null; do sleep 0.05; done; echo own-end' VICTIM",
    });
    assertEquals(own.isError, false, own.text);
    assertStringIncludes(own.value.stdout, "INJECTED-BY-ALICE");
    const aliceSees = await call(alice, "bash", {
      command:
        "cat /tmp/shared.txt; for d in /proc/[0-9]*; do tr '\\0' ' ' < $d/cmdline; echo; done",
    });
    assertStringIncludes(aliceSees.value.stdout, "INJECTED-BY-ALICE");
    assertStringIncludes(aliceSees.value.stdout, "m=VIC");

    // Bob: no list, status, logs, write or stop of Alice's job.
    const listed = await call(bob, "bash", { action: "list" });
    assertEquals(listed.value.processes, []);
    for (const action of ["status", "logs", "write", "stop"]) {
      const tried = await call(bob, "bash", { action, processId: id, input: "x\n" });
      assertEquals(tried.isError, true, `${action}: ${tried.text}`);
      assertStringIncludes(tried.text, `Unknown processId "${id}"`);
    }

    // Bob's command runs while Alice's job completes two more full rounds: nothing of hers
    // lands in its output, and her /tmp file and processes are not there.
    const bobCommand = call(bob, "bash", {
      command: [
        "bash -c 'echo $$ > started; while [ ! -f release ]; do sleep 0.05; done' VICTIM",
        "cat /tmp/shared.txt /tmp/alice.txt",
        "ls -A /tmp",
        "for d in /proc/[0-9]*; do tr '\\0' ' ' < $d/cmdline; echo; done",
        "echo bob-end",
      ].join("; "),
    });
    await waitForFile(`${bobDir}/started`);
    const before = Number(await waitForFile(`${aliceDir}/rounds`));
    while (Number(await waitForFile(`${aliceDir}/rounds`)) < before + 2) await pause();
    await Deno.writeTextFile(`${bobDir}/release`, "");
    const theirs = await bobCommand;
    assertEquals(theirs.isError, false, theirs.text);
    assertStringIncludes(theirs.value.stdout, "bob-end");
    assert(!theirs.text.includes("INJECTED-BY-ALICE"), theirs.text);
    assert(!theirs.text.includes("m=VIC"), theirs.text);
    assertStringIncludes(theirs.value.stderr, "/tmp/shared.txt: No such file");

    // A file Alice writes to /tmp is hers alone.
    const wrote = await call(alice, "bash", {
      command: "echo alice-secret > /tmp/alice.txt; cat /tmp/alice.txt",
    });
    assertStringIncludes(wrote.value.stdout, "alice-secret");
    const read = await call(bob, "bash", { command: "cat /tmp/alice.txt" });
    assert(!read.text.includes("alice-secret"), read.text);
    assertStringIncludes(read.value.stderr, "No such file");

    // Bob's stop did not stop her job; its log is still hers to read.
    assertEquals(
      (await call(alice, "bash", { action: "status", processId: id })).value.running,
      true,
    );
    assertEquals((await call(alice, "bash", { action: "logs", processId: id })).isError, false);

    if (perUser) await folderPerUser(alice, bob, aliceDir);
  } finally {
    await alice.close();
    await bob.close();
  }
  assertEquals(await serve.stop(), 0);
  // The refusals were Bob's, with the code a model sees.
  assertMatch(serve.stderr(), /call bash builtin user=bob \d+ ms error tool_error/);
}

Deno.test({
  name:
    "serve --http, a shared workspace: Alice using up her process limit does not stop Bob running a command",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using fixture = await makeFixture({
      workspace: "work",
      sharedWorkspace: true,
      bash: { sandbox: "bwrap", limits: { processes: 48 } },
      users: USERS,
    });
    await Deno.mkdir(`${fixture.dir}/work`);
    await using serve = await startExactServe(fixture.config, TOKENS);
    const alice = await connectAs(serve.url, TOKENS.TOKEN_ALICE);
    const bob = await connectAs(serve.url, TOKENS.TOKEN_BOB);
    try {
      // Alice forks until the kernel refuses (perl's fork fails at once, unlike bash's retries),
      // and writes down where it stopped; the children sleep on, holding the limit.
      const bomb = await call(alice, "bash", {
        action: "start",
        command:
          `perl -e 'for (1..400) { my $p = fork(); if (!defined $p) { open(my $f, ">", "full"); print $f "refused at $_\\n"; close $f; last } if ($p == 0) { sleep 300; exit } } sleep 300'`,
      });
      assertEquals(bomb.isError, false, bomb.text);
      // The attack ran: her fork was refused, so her session's limit is used up.
      assertMatch(await waitForFile(`${fixture.dir}/work/full`), /^refused at \d+/);
      const hers = await call(alice, "bash", {
        command: "/bin/true && echo alice-forked",
        timeoutMs: 3_000,
      });
      assert(!hers.text.includes("alice-forked"), hers.text);
      // Bob's session has its own limit.
      const his = await call(bob, "bash", { command: "/bin/true && echo bob-forked" });
      assertEquals(his.isError, false, his.text);
      assertEquals(his.value.exitCode, 0, his.text);
      assertStringIncludes(his.value.stdout, "bob-forked");
    } finally {
      await alice.close();
      await bob.close();
    }
    assertEquals(await serve.stop(), 0);
  },
});

// {user}: each has their own folder; Bob cannot reach Alice's by a relative or absolute path.
async function folderPerUser(alice: Client, bob: Client, aliceDir: string): Promise<void> {
  assertEquals(
    (await call(alice, "write_file", { path: "mine.txt", content: "alice's\n" })).isError,
    false,
  );
  assertEquals(await Deno.readTextFile(`${aliceDir}/mine.txt`), "alice's\n");
  assertEquals((await call(bob, "read_file", { path: "mine.txt" })).isError, true);
  for (const path of ["../alice/mine.txt", `${aliceDir}/mine.txt`]) {
    const escaped = await call(bob, "read_file", { path });
    assertEquals(escaped.isError, true, path);
    assertStringIncludes(escaped.text, "outside allowed roots");
  }
  const bobLs = await call(bob, "bash", {
    command: "ls ../ 2>&1; cat ../alice/mine.txt 2>&1; true",
  });
  assert(!bobLs.text.includes("alice's"), bobLs.text);
  assertEquals((await Deno.stat(aliceDir)).mode! & 0o777, 0o700);
}

Deno.test("serve refuses several users with unsandboxed bash: a command reads the bearer tokens in serve's environment", async () => {
  // The attack, where it is allowed (one user): an unsandboxed command finds serve's process and
  // reads its environment, bearer tokens included. With two users that would be the other's.
  await using single = await makeFixture({
    bash: { sandbox: "none" },
    users: { TOKEN_ALICE: { id: "alice" } },
  });
  await using serve = await startExactServe(single.config, TOKENS);
  const alice = await connectAs(serve.url, TOKENS.TOKEN_ALICE);
  try {
    const stolen = await call(alice, "bash", {
      command: "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep '^TOKEN_' | sort -u",
    });
    assertEquals(stolen.isError, false, stolen.text);
    assertStringIncludes(stolen.value.stdout, `TOKEN_BOB=${TOKENS.TOKEN_BOB}`);
  } finally {
    await alice.close();
  }
  assertEquals(await serve.stop(), 0);
  // Two users: refused before listening, shared workspace or not.
  await using shared = await makeFixture({
    bash: { sandbox: "none" },
    sharedWorkspace: true,
    users: USERS,
  });
  const refused = await cli([
    "serve",
    "--config",
    shared.config,
    "--http",
    "127.0.0.1:0",
    "--allow-excess",
  ]);
  assertEquals(refused.code, 2);
  assertStringIncludes(refused.err, 'with bash.sandbox "none"');
  assertStringIncludes(refused.err, "bearer tokens in serve's environment");
});
