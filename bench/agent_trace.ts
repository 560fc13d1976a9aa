/**
 * A coding agent's session, replayed three ways: the 215 calls of `bench/agent_trace.jsonl`
 * (glob, grep, read_file, edit, apply_patch, write_file and bash, in the order an agent makes
 * them: explore, run the tests, read, fix, read again, patch, run one test, ...) against the
 * project of `bench/_agent_fixture.ts`, written afresh into a temporary workspace before each
 * replay.
 *
 * - `sandboxed`: the built-ins through the public API (`ToolRouter`, `builtinTools` with
 *   `bash: { sandbox: "bwrap" }`): every call in the context's bubblewrap session;
 * - `in process`: the same built-ins with `bash: { sandbox: "none" }` (file tools in the host
 *   process, bash spawned on the host);
 * - `raw`: what an agent with no tool layer would do: Deno's file APIs, `@std/fs` `walk` and
 *   `expandGlob`, a string replace for edit and patch, `bash -c` spawned by `Deno.Command` (with
 *   the variables the bash tool passes by default).
 *
 * Each round replays the whole trace once per mode (the order of the modes rotating), so every
 * mode sees the same machine and each keeps the order of its calls (a read right after a bash
 * call stays right after it). Calls follow each other at once, or after `gapMs` of idle time
 * (not timed: an agent's model turn takes seconds). Before each replay the workspace is written
 * again and one untimed `bash true` lets the sandboxed mode's session start. Prints, per mode,
 * the median of the rounds' totals and each kind's median call; then sandboxed / in process
 * (targets: total at most 1.3x, no kind over 2x) and in process / raw; and the load average. On
 * a shared machine, compare ratios within one run, and run it several times.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/agent_trace.ts [rounds=5] [gapMs=0]`
 * (not `_bench`: `deno bench` would replay it on import)
 *
 * @module
 */
import { expandGlob, walk } from "@std/fs";
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";
import { writeFixture } from "./_agent_fixture.ts";

const rounds = Number(Deno.args[0] ?? 5);
const gapMs = Number(Deno.args[1] ?? 0);

interface Call {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}
const trace: Call[] = (await Deno.readTextFile(new URL("./agent_trace.jsonl", import.meta.url)))
  .split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
const TOOLS = ["bash", "read_file", "grep", "glob", "edit", "apply_patch", "write_file"];

type Replay = (call: Call) => Promise<void>;

/** The built-ins through the router: a result with `isError` stops the bench. */
async function builtins(
  workspace: string,
  sandbox: "bwrap" | "none",
): Promise<{ replay: Replay; close(): Promise<void> }> {
  const set = builtinTools({ workspace, bash: { sandbox } });
  const tools = await new ToolRouter({ builtins: set }).expose({ builtins: TOOLS });
  return {
    async replay(call) {
      const result = await tools.call(call.tool, JSON.stringify(call.args));
      if (result.isError) {
        throw new Error(`${sandbox}: ${call.tool} ${JSON.stringify(call.args)}: ${result.text}`);
      }
    },
    close: () => set.close(),
  };
}

/** The same work with no tool layer. */
function raw(workspace: string): Replay {
  const at = (path: unknown) => `${workspace}/${String(path ?? ".")}`;
  const write = async (path: string, text: string) => {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  };
  const replace = (text: string, from: string, to: string, where: string) => {
    const index = text.indexOf(from);
    if (index < 0 || text.indexOf(from, index + 1) >= 0) throw new Error(`raw: not once: ${where}`);
    return text.slice(0, index) + to + text.slice(index + from.length);
  };
  // The variables the bash tool passes by default, and no others (the host's environment can
  // hold some that slow a program down, such as `NODE_EXTRA_CA_CERTS` for node).
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "LANG", "TERM"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const ops: Record<string, Replay> = {
    async bash({ args }) {
      await new Deno.Command("bash", {
        args: ["-c", String(args.command)],
        cwd: workspace,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    },
    async read_file({ args }) {
      const lines = (await Deno.readTextFile(at(args.path))).split("\n");
      const start = Number(args.startLine ?? 1);
      lines.slice(start - 1, Number(args.endLine ?? lines.length)).join("\n");
    },
    async write_file({ args }) {
      await write(at(args.path), String(args.content));
    },
    async edit({ args }) {
      const path = at(args.path);
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        replace(text, String(args.oldString), String(args.newString), path),
      );
    },
    async apply_patch({ args }) {
      // The trace's patches only: Update File with `@@` hunks, and Add File.
      const blocks = String(args.patch).split(/^\*\*\* (?=Update File: |Add File: |End Patch)/m);
      for (const block of blocks.slice(1)) {
        const [head, ...lines] = block.split("\n");
        if (head.startsWith("Add File: ")) {
          const body = lines.filter((line) => line.startsWith("+")).map((line) => line.slice(1));
          await write(at(head.slice(10)), body.join("\n") + "\n");
        } else if (head.startsWith("Update File: ")) {
          const path = at(head.slice(13));
          let text = await Deno.readTextFile(path);
          const hunk = lines.filter((line) => !line.startsWith("@@") && line !== "");
          const from = hunk.filter((line) => line[0] !== "+").map((line) => line.slice(1));
          const to = hunk.filter((line) => line[0] !== "-").map((line) => line.slice(1));
          text = replace(text, from.join("\n") + "\n", to.join("\n") + "\n", path);
          await Deno.writeTextFile(path, text);
        }
      }
    },
    async grep({ args }) {
      const pattern = new RegExp(String(args.pattern));
      const found: string[] = [];
      const root = at(args.path);
      const files = [root];
      if (!(await Deno.stat(root)).isFile) {
        files.pop();
        for await (const entry of walk(root, { includeDirs: false, skip: [/\/\.git\//] })) {
          files.push(entry.path);
        }
      }
      for (const file of files) {
        const lines = (await Deno.readTextFile(file)).split("\n");
        lines.forEach((line, i) => pattern.test(line) && found.push(`${file}:${i + 1}`));
      }
    },
    async glob({ args }) {
      const found: string[] = [];
      const options = { root: workspace, exclude: [".git"], includeDirs: false };
      for await (const entry of expandGlob(String(args.pattern), options)) found.push(entry.path);
    },
  };
  return (call) => ops[call.tool](call);
}

async function reset(workspace: string): Promise<void> {
  // The directory itself stays: the sandbox session binds it. So does `.git`, the user's
  // repository: one made again would be another folder, which the sandboxed mode's walk takes
  // for a repository planted since its first walk, disables and then walks into at every call
  // (no real session has that). `writeFixture` commits the same tree again: nothing changes.
  for await (const entry of Deno.readDir(workspace)) {
    if (entry.name === ".git") continue;
    await Deno.remove(`${workspace}/${entry.name}`, { recursive: true });
  }
  await writeFixture(workspace);
}

async function loadavg(): Promise<string> {
  const text = await Deno.readTextFile("/proc/loadavg").catch(() => "? ? ?");
  return text.split(" ").slice(0, 3).join(" ");
}

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_agent_trace_" }));
const MODES = ["sandboxed", "in process", "raw"] as const;
type Mode = typeof MODES[number];
const modes = {} as Record<Mode, { workspace: string; replay: Replay; close?(): Promise<void> }>;
try {
  for (const mode of MODES) {
    const workspace = `${base}/${mode.replace(" ", "_")}`;
    await Deno.mkdir(workspace);
    if (mode === "raw") modes[mode] = { workspace, replay: raw(workspace) };
    else {modes[mode] = {
        workspace,
        ...await builtins(workspace, mode === "sandboxed" ? "bwrap" : "none"),
      };}
  }
  const counts: Record<string, number> = {};
  for (const call of trace) counts[call.tool] = (counts[call.tool] ?? 0) + 1;
  console.log(
    `${trace.length} calls (${Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ")}); ` +
      `${rounds} rounds; gap ${gapMs} ms; load before: ${await loadavg()}`,
  );
  const totals = new Map(MODES.map((mode) => [mode, [] as number[]]));
  const byKind = new Map(MODES.map((mode) => [mode, new Map<string, number[]>()]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(round + i) % MODES.length];
      const { workspace, replay } = modes[mode];
      await reset(workspace);
      await replay({ tool: "bash", args: { command: "true" } });
      let total = 0;
      for (const call of trace) {
        if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        const started = performance.now();
        await replay(call);
        const ms = performance.now() - started;
        total += ms;
        const kinds = byKind.get(mode)!;
        if (!kinds.has(call.tool)) kinds.set(call.tool, []);
        kinds.get(call.tool)!.push(ms);
      }
      totals.get(mode)!.push(total);
    }
  }
  const fmt = (ms: number) => ms >= 100 ? ms.toFixed(0) : ms.toFixed(2);
  const rows: string[][] = [["", ...MODES, "sandboxed / in process", "in process / raw"]];
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const total = (mode: Mode) => median(totals.get(mode)!);
  rows.push([
    "total (ms, median of rounds)",
    ...MODES.map((mode) => fmt(total(mode))),
    ratio(total("sandboxed"), total("in process")),
    ratio(total("in process"), total("raw")),
  ]);
  for (const kind of TOOLS) {
    const of = (mode: Mode) => median(byKind.get(mode)!.get(kind) ?? [Number.NaN]);
    rows.push([
      `${kind} (median ms)`,
      ...MODES.map((mode) => fmt(of(mode))),
      ratio(of("sandboxed"), of("in process")),
      ratio(of("in process"), of("raw")),
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join("  "));
  console.log(
    `round totals (ms): ${
      MODES.map((mode) => `${mode} ${totals.get(mode)!.map(fmt).join(" / ")}`).join("; ")
    }`,
  );
  console.log(`load after: ${await loadavg()}`);
} finally {
  for (const mode of MODES) await modes[mode]?.close?.();
  await Deno.remove(base, { recursive: true });
}
