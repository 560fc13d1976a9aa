/**
 * glob and grep against the GNU tools, side by side in one run (ratios, never absolute figures:
 * the machine is shared). Two trees: a generated one of 20,000 files in 2,000 folders (40 lines
 * each, 1 % of them holding the literal searched for), and a copy of a real source tree
 * (`/usr/include`, when it exists). Each group's baseline is the GNU tool run as a process
 * (`grep -rn LITERAL DIR`, `find DIR -name '*.ts'`), so its time includes spawning it; the
 * built-ins run through the router with `includeIgnored: true` (GNU grep and find know nothing of
 * `.gitignore`) and limits above the number of results, once in process (bash off) and once in the
 * file sandbox (`bash: { sandbox: "bwrap" }`: the listing and reads run in bubblewrap). Neither tree
 * has a `.git` folder, so the built-ins skipping it changes nothing.
 *
 * Run: deno bench --no-prompt -A bench/search_bench.ts
 */
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const base = await Deno.makeTempDir({ prefix: "toolroute_search_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
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

const generated = `${base}/generated`;
generate(generated);
const count = await new Deno.Command("find", { args: [generated, "-type", "f"] }).output();
if (new TextDecoder().decode(count.stdout).split("\n").length !== 20_001) {
  throw new Error("The generated tree does not hold 20,000 files");
}
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

// Deno.bench awaits only `async` functions: a plain arrow returning a promise is timed unawaited.
async function gnu(program: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" }).output();
  if (out.stdout.length === 0) throw new Error(`${program} found nothing`);
}

for (const tree of trees) {
  const routers = {
    "in process": new ToolRouter({
      builtins: builtinTools({ workspace: tree.dir, outputMaxChars: 1e8 }),
    }),
    "in bwrap": new ToolRouter({
      builtins: builtinTools({
        workspace: tree.dir,
        bash: { sandbox: "bwrap" },
        outputMaxChars: 1e8,
      }),
    }),
  };
  const grepArgs = { pattern: tree.literal, includeIgnored: true, maxResults: 1e6 };
  const globArgs = { pattern: `**/*.${tree.ext}`, includeIgnored: true, maxResults: 1e6 };
  const options = { n: 8, warmup: 2 };
  Deno.bench(`GNU grep -rn ${tree.literal} (${tree.name})`, {
    ...options,
    group: `grep ${tree.name}`,
    baseline: true,
  }, async () => await gnu("grep", ["-rn", tree.literal, tree.dir]));
  Deno.bench(`GNU find -name '*.${tree.ext}' (${tree.name})`, {
    ...options,
    group: `glob ${tree.name}`,
    baseline: true,
  }, async () => await gnu("find", [tree.dir, "-name", `*.${tree.ext}`]));
  for (const [where, router] of Object.entries(routers)) {
    const tools = await router.expose({ builtins: ["glob", "grep"] });
    Deno.bench(
      `grep ${where} (${tree.name})`,
      { ...options, group: `grep ${tree.name}` },
      async () => {
        const result = JSON.parse(await tools.invoke("grep", grepArgs));
        if (result.matches.length === 0 || result.truncated) {
          throw new Error("grep did not find all");
        }
      },
    );
    Deno.bench(
      `glob ${where} (${tree.name})`,
      { ...options, group: `glob ${tree.name}` },
      async () => {
        const result = JSON.parse(await tools.invoke("glob", globArgs));
        if (result.paths.length === 0 || result.truncated) throw new Error("glob did not find all");
      },
    );
  }
}
