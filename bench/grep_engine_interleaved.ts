/**
 * grep's matching before and after issue 25's finding 2, interleaved in one run over the repo's
 * own `src/` tree (read into memory once, so only decoding and matching are timed): JavaScript's
 * backtracking engine as `grep` ran it before (a `gm` scan of the whole text, each candidate
 * confirmed on its line), RE2 (`re2js`) as it runs now (slices of lines, a plain literal in
 * JavaScript's engine), and RE2 for literals too (what the literal fast path is measured
 * against). Each round runs every candidate once, the order rotating; ratios of medians to the
 * "before" candidate are what to compare, never absolute figures.
 *
 * Then the whole tool as a model calls it (`grep` through the router, in process, `src/` walked
 * and read), against GNU `grep -rnE` (spawned) in the same rounds: what a call costs now.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/grep_engine_interleaved.ts [rounds=21]`
 */
import { RE2JS } from "re2js";
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";
import {
  type CompiledPattern,
  compilePattern,
  cutLine,
  searchLines,
} from "../src/deno/builtins/search/line_search.ts";

const rounds = Number(Deno.args[0] ?? 21);
const root = new URL("../src", import.meta.url).pathname;

const files: Uint8Array[] = [];
async function walk(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await walk(path);
    else if (entry.isFile) files.push(await Deno.readFile(path));
  }
}
await walk(root);

/** The matching of `grep` before: a JavaScript scan of the whole text, confirmed on the line. */
function searchBefore(text: string, scan: RegExp, line: RegExp, limit: number): number {
  let count = 0;
  scan.lastIndex = 0;
  while (count < limit && scan.lastIndex <= text.length) {
    const found = scan.exec(text);
    if (found === null) break;
    const start = found.index === 0 ? 0 : text.lastIndexOf("\n", found.index - 1) + 1;
    let end = text.indexOf("\n", found.index);
    if (end < 0) end = text.length;
    const lineText = text.slice(start, end > start && text[end - 1] === "\r" ? end - 1 : end);
    const onLine = line.exec(lineText);
    if (onLine !== null) {
      cutLine(lineText, onLine.index);
      count++;
    }
    scan.lastIndex = end + 1;
  }
  return count;
}

const cases: { pattern: string; ignoreCase: boolean }[] = [
  { pattern: "ToolError", ignoreCase: false },
  { pattern: "readonly", ignoreCase: true },
  { pattern: "export (async )?function \\w+", ignoreCase: false },
  { pattern: "import .* from", ignoreCase: false },
];

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const decoder = new TextDecoder();
console.log(`${files.length} files of src/, rounds ${rounds}`);
for (const { pattern, ignoreCase } of cases) {
  const flags = ignoreCase ? "i" : "";
  const now = compilePattern(pattern, ignoreCase);
  const candidates: Record<string, () => Promise<number>> = {
    "JS (before)": () => {
      const scan = new RegExp(pattern, `gmu${flags}`);
      const line = new RegExp(pattern, `u${flags}`);
      let count = 0;
      for (const data of files) count += searchBefore(decoder.decode(data), scan, line, 1e9);
      return Promise.resolve(count);
    },
    "RE2 (now)": async () => {
      let count = 0;
      for (const data of files) {
        count += (await searchLines(decoder.decode(data), now, { limit: 1e9 })).length;
      }
      return count;
    },
  };
  if (now.plain !== undefined) {
    const flagsRe2 = RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    const re2Only: CompiledPattern = {
      re2: RE2JS.compile(RE2JS.quote(pattern), flagsRe2),
      bySlice: true,
      sliceChars: 32 * 1024,
      literalChars: 0,
    };
    candidates["RE2 for literals"] = async () => {
      let count = 0;
      for (const data of files) {
        count += (await searchLines(decoder.decode(data), re2Only, { limit: 1e9 })).length;
      }
      return count;
    };
  }
  const entries = Object.entries(candidates);
  const counts = new Map<string, number>();
  for (const [label, run] of entries) counts.set(label, await run()); // warm-up
  const times = new Map(entries.map(([label]) => [label, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < entries.length; i++) {
      const [label, run] = entries[(round + i) % entries.length];
      const start = performance.now();
      await run();
      times.get(label)!.push(performance.now() - start);
    }
  }
  const base = quantile(times.get(entries[0][0])!.sort((a, b) => a - b), 0.5);
  console.log(`\n${JSON.stringify(pattern)}${ignoreCase ? " ignoreCase" : ""}`);
  for (const [label] of entries) {
    const median = quantile(times.get(label)!.sort((a, b) => a - b), 0.5);
    console.log(
      `  ${label.padEnd(18)} median ${median.toFixed(1).padStart(7)} ms ` +
        `(${(median / base).toFixed(2)}x)  lines ${counts.get(label)}`,
    );
  }
}

const router = new ToolRouter({ builtins: builtinTools({ workspace: root, outputMaxChars: 1e8 }) });
const tools = await router.expose({ builtins: ["grep"] });
console.log("\nthe grep tool over src/ (in process) against GNU grep -rnE");
for (const { pattern, ignoreCase } of cases) {
  const candidates: [string, () => Promise<void>][] = [
    ["GNU grep -rnE", async () => {
      const args = [
        "-rnE",
        ...(ignoreCase ? ["-i"] : []),
        pattern.replace("\\w", "[[:alnum:]_]"),
        root,
      ];
      await new Deno.Command("grep", { args, stdout: "piped" }).output();
    }],
    ["grep tool", async () => {
      const result = JSON.parse(
        await tools.invoke("grep", { pattern, ignoreCase, includeIgnored: true, maxResults: 1e6 }),
      );
      if (result.matches.length === 0) throw new Error("grep missed");
    }],
  ];
  const times = new Map(candidates.map(([label]) => [label, [] as number[]]));
  for (const [, run] of candidates) await run();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < candidates.length; i++) {
      const [label, run] = candidates[(round + i) % candidates.length];
      const start = performance.now();
      await run();
      times.get(label)!.push(performance.now() - start);
    }
  }
  const base = quantile(times.get(candidates[0][0])!.sort((a, b) => a - b), 0.5);
  const median = quantile(times.get("grep tool")!.sort((a, b) => a - b), 0.5);
  console.log(
    `  ${JSON.stringify(pattern).padEnd(32)} GNU ${base.toFixed(1)} ms, tool ${
      median.toFixed(1)
    } ms (${(median / base).toFixed(2)}x)`,
  );
}
await router.close();
