/**
 * glob and grep against the GNU tools, interleaved in one run: each round runs every candidate
 * of a case once (the order rotating), so load from other processes on a shared machine hits all
 * alike; ratios of medians (and of p99s), never absolute figures, are what to compare. Two trees:
 * a generated one of 20,000 files in 2,000 folders (40 lines each, 1 % of them holding the
 * literal searched for), and a copy of a real source tree (`/usr/include`, when it exists). Each
 * case's baseline is the GNU tool run as a process (`grep -rn LITERAL DIR`, `find DIR -name
 * '*.ts'`), so its time includes spawning it; the built-ins run through the router with
 * `includeIgnored: true` (GNU grep and find know nothing of `.gitignore`) and limits above the
 * number of results, once in process (bash off) and once in the context's sandbox session
 * (`bash: { sandbox: "bwrap" }`, the session started before the rounds). Neither tree has a
 * `.git` folder, so the built-ins skipping it changes nothing.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/search_interleaved.ts [rounds=21]`
 * (named `_interleaved`, not `_bench`: `deno bench` would run its rounds on import)
 */
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const rounds = Number(Deno.args[0] ?? 21);
const base = await Deno.makeTempDir({ prefix: "toolroute_search_bench_" });
const LITERAL = "needle42";

/** 20,000 files in 2,000 folders (20 top folders of 100), a quarter of them `.ts`. */
function generate(dir: string): void {
  const words = ["alpha", "beta", "gamma", "import", "export", "function", "const", "return"];
  let seed = 1; // mulberry32: the same tree on every run
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let d = 0; d < 2000; d++) {
    const folder = `${dir}/d${Math.floor(d / 100)}/s${d}`;
    Deno.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < 10; f++) {
      const lines: string[] = [];
      for (let l = 0; l < 40; l++) {
        lines.push(Array.from({ length: 8 }, () => words[Math.floor(random() * 8)]).join(" "));
      }
      if (random() < 0.01) lines.push(`const marker = "${LITERAL}";`);
      Deno.writeTextFileSync(
        `${folder}/f${f}${[".ts", ".js", ".md", ".json"][f % 4]}`,
        lines.join("\n") + "\n",
      );
    }
  }
}

// Deno.bench-less: a plain loop, so the candidates can alternate within each round.
async function gnu(program: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" }).output();
  if (out.stdout.length === 0) throw new Error(`${program} found nothing`);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function uptime(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

try {
  const generated = `${base}/generated`;
  generate(generated);
  const trees = [{ name: "generated 20k", dir: generated, literal: LITERAL, ext: "ts" }];
  try {
    await Deno.stat("/usr/include");
    const copy = `${base}/usr_include`;
    const cp = await new Deno.Command("cp", { args: ["-r", "/usr/include", copy] }).output();
    if (cp.success) {
      trees.push({ name: "/usr/include copy", dir: copy, literal: "EXIT_FAILURE", ext: "h" });
    }
  } catch {
    // No real tree to copy on this machine: the generated one only.
  }
  console.log(`rounds ${rounds}; load before: ${await uptime()}`);
  for (const tree of trees) {
    const routers = {
      "in process": new ToolRouter({
        builtins: builtinTools({ workspace: tree.dir, outputMaxChars: 1e8 }),
      }),
      "session": new ToolRouter({
        builtins: builtinTools({
          workspace: tree.dir,
          bash: { sandbox: "bwrap" },
          outputMaxChars: 1e8,
        }),
      }),
    };
    const grepArgs = { pattern: tree.literal, includeIgnored: true, maxResults: 1e6 };
    const globArgs = { pattern: `**/*.${tree.ext}`, includeIgnored: true, maxResults: 1e6 };
    const cases: Record<string, Record<string, () => Promise<void>>> = {
      grep: { "GNU grep -rn": () => gnu("grep", ["-rn", tree.literal, tree.dir]) },
      glob: { "GNU find -name": () => gnu("find", [tree.dir, "-name", `*.${tree.ext}`]) },
    };
    for (const [where, router] of Object.entries(routers)) {
      const tools = await router.expose({ builtins: ["glob", "grep"] });
      cases.grep[`grep ${where}`] = async () => {
        const result = JSON.parse(await tools.invoke("grep", grepArgs));
        if (result.matches.length === 0 || result.truncated) throw new Error("grep missed");
      };
      cases.glob[`glob ${where}`] = async () => {
        const result = JSON.parse(await tools.invoke("glob", globArgs));
        if (result.paths.length === 0 || result.truncated) throw new Error("glob missed");
      };
    }
    for (const [name, candidates] of Object.entries(cases)) {
      const entries = Object.entries(candidates);
      const times = new Map(entries.map(([label]) => [label, [] as number[]]));
      for (const [, run] of entries) await run(); // warm-up (and the session's start)
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < entries.length; i++) {
          const [label, run] = entries[(round + i) % entries.length];
          const start = performance.now();
          await run();
          times.get(label)!.push(performance.now() - start);
        }
      }
      const [baseLabel] = entries[0];
      const baseTimes = times.get(baseLabel)!.sort((a, b) => a - b);
      const baseMedian = quantile(baseTimes, 0.5);
      const baseP99 = quantile(baseTimes, 0.99);
      console.log(`\n${name} (${tree.name}), load ${await uptime()}`);
      for (const [label] of entries) {
        const sorted = times.get(label)!.sort((a, b) => a - b);
        const median = quantile(sorted, 0.5);
        const p99 = quantile(sorted, 0.99);
        console.log(
          `  ${label.padEnd(18)} median ${median.toFixed(1).padStart(7)} ms ` +
            `(${(median / baseMedian).toFixed(2)}x)  p99 ${p99.toFixed(1).padStart(7)} ms ` +
            `(${(p99 / baseP99).toFixed(2)}x)`,
        );
      }
    }
    for (const router of Object.values(routers)) await router.close();
  }
} finally {
  await Deno.remove(base, { recursive: true });
}
