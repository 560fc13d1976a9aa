// The symlink-swap race (review F3): a background command of the model, inside the bwrap sandbox,
// swaps a directory `d` and a symlink `lnk -> <outside>` with renameat2(RENAME_EXCHANGE) as fast as
// it can while the model calls the file tools. The tools run in a child process under exactly
// `denoFlags(context)` (strict: no excess). With bash sandboxed, write_file and apply_patch do
// their writes inside bubblewrap, where the outside path does not exist.
//
// The racer counts its successful swaps (in `swaps.txt`): each test asserts that it swapped, so a
// racer that could not run fails the test instead of passing it with no race at all. Where it
// cannot run (no perl, or not Linux on x86_64 or arm64) the tests are skipped with a notice;
// under CI on Linux x86_64 with perl they always run.
import { assert, assertEquals } from "@std/assert";
import { denoFlags } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

const SECRET = "RACE-OUTSIDE-SECRET-2b7d";
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;
// Each test stops after this many rounds or this long, whichever comes first.
const DEADLINE_MS = 10_000;

const PRELUDE = `
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
const context = JSON.parse(Deno.args[0]);
const deadline = Date.now() + Number(Deno.args[2]);
await using router = new ToolRouter({ builtins: builtinTools(context, { strict: true }) });
const tools = await router.expose({ builtins: ["read_file", "write_file", "apply_patch", "bash"] });
const started = await tools.call("bash", { action: "start", command: "perl racer.pl" });
const { processId } = JSON.parse(started.text);
const leaks = [];
let rounds = 0;
// The rounds start once the racer swaps: the tools are fast enough now to finish every round
// before a racer still starting in the sandbox has published its first count.
while (Date.now() < deadline) {
  const swaps = await Deno.readTextFile(context.workspace + "/swaps.txt").catch(() => "0");
  if (Number(swaps) > 0) break;
  await new Promise((resolve) => setTimeout(resolve, 5));
}
`;

const RACE_CHILD = PRELUDE + `
for (; rounds < 400 && Date.now() < deadline; rounds++) {
  const read = await tools.call("read_file", { path: "d/secret.txt" });
  if (read.text.includes(Deno.args[1])) leaks.push("read " + rounds);
  await tools.call("write_file", { path: "d/w" + rounds + ".txt", content: "PWN" });
  await tools.call("apply_patch", {
    patch: "*** Begin Patch\\n*** Delete File: d/secret.txt\\n*** End Patch",
  });
}
await tools.call("bash", { action: "stop", processId });
console.log(JSON.stringify({ leaks, rounds }));
`;

const APPEND_CHILD = PRELUDE + `
for (; rounds < 600 && Date.now() < deadline; rounds++) {
  await tools.call("write_file", { path: "d/secret.txt", content: "", mode: "append" });
}
await tools.call("bash", { action: "stop", processId });
console.log(JSON.stringify({ leaks, rounds }));
`;

// renameat2(AT_FDCWD, "d", AT_FDCWD, "lnk", RENAME_EXCHANGE) in a loop; every 1024 attempts the
// number of successful swaps so far is published (written, then renamed) to swaps.txt.
// renameat2 is syscall 316 on x86_64 and 276 on arm64.
const RENAMEAT2: Record<string, number> = { x86_64: 316, aarch64: 276 };
const RACER = `my ($x, $y, $i, $n) = ("d", "lnk", 0, 0);
while (1) {
  $n++ if syscall(${RENAMEAT2[Deno.build.arch] ?? -1}, -100, $x, -100, $y, 2) == 0;
  if (++$i % 1024 == 0) {
    open(my $f, ">", "swaps.tmp") or next;
    print $f $n;
    close $f;
    rename("swaps.tmp", "swaps.txt");
  }
}
`;

/** Why the racer cannot run here, or `undefined` when it can. */
function racerUnavailable(): string | undefined {
  if (Deno.build.os !== "linux" || RENAMEAT2[Deno.build.arch] === undefined) {
    return `the racer knows renameat2 on Linux x86_64 and arm64, not ${Deno.build.os} ${Deno.build.arch}`;
  }
  try {
    const perl = new Deno.Command("perl", { args: ["-e", "1"], stdout: "null", stderr: "null" });
    if (!perl.outputSync().success) return "perl does not run";
  } catch {
    return "perl is not installed";
  }
  return undefined;
}

const unavailable = racerUnavailable();
if (unavailable !== undefined) {
  console.error(`write_race_test: skipped, the racer cannot run here (${unavailable})`);
}

interface Race extends AsyncDisposable {
  ws: string;
  out: string;
  run(script: string): Promise<{ leaks: string[]; rounds: number; swaps: number }>;
}

/** A workspace with `d/secret.txt` and `lnk -> outside`, and an outside secret. */
async function race(): Promise<Race> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_race_" }));
  const ws = `${base}/ws`;
  const out = `${base}/outside`;
  await Deno.mkdir(`${ws}/d`, { recursive: true });
  await Deno.mkdir(out);
  await Deno.writeTextFile(`${ws}/d/secret.txt`, "inside\n");
  await Deno.writeTextFile(`${out}/secret.txt`, `${SECRET}\n`);
  await Deno.symlink(out, `${ws}/lnk`);
  await Deno.writeTextFile(`${ws}/racer.pl`, RACER);
  const context = { workspace: ws, bash: { sandbox: "bwrap" as const } };
  return {
    ws,
    out,
    async run(source) {
      const script = `${base}/race.ts`;
      await Deno.writeTextFile(script, source);
      const child = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          `--config=${CONFIG}`,
          ...denoFlags(context),
          script,
          JSON.stringify(context),
          SECRET,
          String(DEADLINE_MS),
        ],
        stdin: "null",
      }).output();
      assert(child.success, new TextDecoder().decode(child.stderr));
      const result = JSON.parse(new TextDecoder().decode(child.stdout));
      const published = await Deno.readTextFile(`${ws}/swaps.txt`).catch(() => "0");
      return { ...result, swaps: Number(published) };
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test({
  name:
    "write_file and apply_patch never read, write or remove outside through a racing symlink swap",
  ignore: unavailable !== undefined || skipWithoutBwrap(),
  fn: async () => {
    await using r = await race();
    const { leaks, rounds, swaps } = await r.run(RACE_CHILD);
    assert(rounds >= 20, `only ${rounds} rounds ran`);
    assert(swaps > 0, "the racer performed no swap: the race did not run");
    assertEquals(leaks, []);
    // Nothing at all appears outside: not even an empty temporary file.
    assertEquals(await listing(r.out), ["secret.txt"]);
    assertEquals(await Deno.readTextFile(`${r.out}/secret.txt`), `${SECRET}\n`);
  },
});

Deno.test({
  name: "write_file append never copies an outside file in through a racing symlink swap",
  ignore: unavailable !== undefined || skipWithoutBwrap(),
  fn: async () => {
    await using r = await race();
    const { rounds, swaps } = await r.run(APPEND_CHILD);
    assert(rounds >= 20, `only ${rounds} rounds ran`);
    assert(swaps > 0, "the racer performed no swap: the race did not run");
    // After the stop, whichever of d and lnk is the real directory is the workspace's own.
    const own = (await Deno.lstat(`${r.ws}/d`)).isDirectory ? "d" : "lnk";
    const inside = await Deno.readTextFile(`${r.ws}/${own}/secret.txt`);
    assert(!inside.includes(SECRET), "the workspace now holds the outside secret");
    assertEquals(await listing(r.out), ["secret.txt"]);
    assertEquals(await Deno.readTextFile(`${r.out}/secret.txt`), `${SECRET}\n`);
  },
});
