// The symlink-swap race (review F3): a background command of the model, inside the bwrap sandbox,
// swaps a directory `d` and a symlink `lnk -> <outside>` with renameat2(RENAME_EXCHANGE) as fast as
// it can while the model calls the file tools. The tools run in a child process under exactly
// `denoFlags(context)` (strict: no excess). With bash sandboxed, write_file and apply_patch do
// their writes inside bubblewrap, where the outside path does not exist.
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
const started = await tools.call("bash", { action: "start", command:
  "perl -e 'my ($x, $y) = (\\"d\\", \\"lnk\\"); while(1){ syscall(316, -100, $x, -100, $y, 2); }'" });
const { processId } = JSON.parse(started.text);
const leaks = [];
let rounds = 0;
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

interface Race extends AsyncDisposable {
  ws: string;
  out: string;
  run(script: string): Promise<{ leaks: string[]; rounds: number }>;
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
      return JSON.parse(new TextDecoder().decode(child.stdout));
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

Deno.test(
  "write_file and apply_patch never read, write or remove outside through a racing symlink swap",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using r = await race();
    const { leaks, rounds } = await r.run(RACE_CHILD);
    assert(rounds >= 20, `only ${rounds} rounds ran`);
    assertEquals(leaks, []);
    // Nothing at all appears outside: not even an empty temporary file.
    assertEquals(await listing(r.out), ["secret.txt"]);
    assertEquals(await Deno.readTextFile(`${r.out}/secret.txt`), `${SECRET}\n`);
  },
);

Deno.test("write_file append never copies an outside file in through a racing symlink swap", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using r = await race();
  const { rounds } = await r.run(APPEND_CHILD);
  assert(rounds >= 20, `only ${rounds} rounds ran`);
  // After the stop, whichever of d and lnk is the real directory is the workspace's own.
  const own = (await Deno.lstat(`${r.ws}/d`)).isDirectory ? "d" : "lnk";
  const inside = await Deno.readTextFile(`${r.ws}/${own}/secret.txt`);
  assert(!inside.includes(SECRET), "the workspace now holds the outside secret");
  assertEquals(await listing(r.out), ["secret.txt"]);
  assertEquals(await Deno.readTextFile(`${r.out}/secret.txt`), `${SECRET}\n`);
});
