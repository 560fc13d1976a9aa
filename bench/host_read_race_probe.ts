/**
 * A probe, not a test: the symlink-swap race against the host path checks (bash "none", so the
 * file tools run in the host process, checked by `paths/opened_file_check.ts`). A background
 * command swaps a directory `d` and a symlink `lnk -> <outside>` with renameat2(RENAME_EXCHANGE)
 * as fast as it can while the model reads `d/secret.txt`, in a child under exactly
 * `denoFlags(context)`. Prints the reads that returned the outside secret, per outcome.
 *
 * The host checks are path-based and narrow the race without closing it (their documentation
 * says so; sandboxed contexts do every access inside bubblewrap instead): about 1 read in 3 000
 * leaked in some runs, before and after session 20's changes alike (and under bash "none" the
 * model could read the file with `cat` anyway). Linux x86_64/arm64 with perl only.
 *
 * Run: deno run -A --config bench/deno.json bench/host_read_race_probe.ts [runs, default 3]
 *
 * @module
 */
import { denoFlags } from "../src/deno/mod.ts";

const SECRET = "HOST-RACE-OUTSIDE-SECRET-71c3";
const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const DEADLINE_MS = 8_000;
const RENAMEAT2: Record<string, number> = { x86_64: 316, aarch64: 276 };

const CHILD = `
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
const context = JSON.parse(Deno.args[0]);
const deadline = Date.now() + Number(Deno.args[2]);
await using router = new ToolRouter({ builtins: builtinTools(context, { strict: true }) });
const tools = await router.expose({ builtins: ["read_file", "bash"] });
const started = await tools.call("bash", { action: "start", command: "perl racer.pl" });
const { processId } = JSON.parse(started.text);
const leaks = [];
const outcomes = {};
let rounds = 0;
for (; rounds < 3000 && Date.now() < deadline; rounds++) {
  const read = await tools.call("read_file", { path: "d/secret.txt" });
  if (read.text.includes(Deno.args[1])) leaks.push(rounds);
  const outcome = read.isError ? read.code : "inside";
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
}
await tools.call("bash", { action: "stop", processId });
console.log(JSON.stringify({ leaks, rounds, outcomes }));
`;

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
if (unavailable !== undefined) throw new Error(`The racer cannot run here: ${unavailable}`);

for (let run = 0; run < Number(Deno.args[0] ?? 3); run++) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_hostrace_" }));
  try {
    const ws = `${base}/ws`;
    const out = `${base}/outside`;
    await Deno.mkdir(`${ws}/d`, { recursive: true });
    await Deno.mkdir(out);
    await Deno.writeTextFile(`${ws}/d/secret.txt`, "inside\n");
    await Deno.writeTextFile(`${out}/secret.txt`, `${SECRET}\n`);
    await Deno.symlink(out, `${ws}/lnk`);
    await Deno.writeTextFile(`${ws}/racer.pl`, RACER);
    const context = { workspace: ws, bash: { sandbox: "none" as const } };
    await Deno.writeTextFile(`${base}/race.ts`, CHILD);
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        `--config=${CONFIG}`,
        ...denoFlags(context),
        `${base}/race.ts`,
        JSON.stringify(context),
        SECRET,
        String(DEADLINE_MS),
      ],
      stdin: "null",
    }).output();
    if (!child.success) throw new Error(new TextDecoder().decode(child.stderr));
    const { leaks, rounds, outcomes } = JSON.parse(new TextDecoder().decode(child.stdout));
    const swaps = Number(await Deno.readTextFile(`${ws}/swaps.txt`).catch(() => "0"));
    console.log(
      `run ${run + 1}: ${rounds} reads, ${swaps} swaps, ${leaks.length} leaked; outcomes ${
        JSON.stringify(outcomes)
      }`,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}
