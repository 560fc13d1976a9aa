/**
 * Result budgets: a tool returns a 50 MB result five times in a row; each is cut to its budget
 * and kept whole behind a handle, and one is read back page by page. Printed: the SHA-256 match,
 * the stored bytes and the process's heap and RSS after each call (after a full GC), for the
 * router's in-memory store with a 64 MiB cap and for the built-ins' sealed files.
 *
 * Run: `deno run -A --v8-flags=--expose-gc --config bench/deno.json bench/result_budget.ts`
 *
 * @module
 */
import { z } from "zod";
import { defineTool, ToolRouter, type ToolSet } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const SIZE = 50 * 1024 * 1024;
const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

function memory(): string {
  gc!();
  const { heapUsed, rss } = Deno.memoryUsage();
  return `heap ${(heapUsed / MiB).toFixed(0)} MiB, rss ${(rss / MiB).toFixed(0)} MiB`;
}

async function digest(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function readAll(tools: ToolSet, handle: string): Promise<{ text: string; pages: number }> {
  const parts: string[] = [];
  let offset: number | undefined = 0;
  let pages = 0;
  while (offset !== undefined) {
    const page = await tools.call("read_result", { handle, offset });
    parts.push((page.content[0] as { text: string }).text);
    offset = (page.structuredContent as { nextOffset?: number }).nextOffset;
    pages++;
  }
  return { text: parts.join(""), pages };
}

async function run(label: string, tools: ToolSet, name: string, args: Record<string, unknown>) {
  console.log(`\n${label}`);
  console.log(`  before: ${memory()}`);
  let first: string | undefined;
  let firstDigest = "";
  for (let round = 1; round <= 5; round++) {
    const result = await tools.call(name, args);
    first ??= result.resultHandle;
    console.log(
      `  call ${round}: ${result.text.length} characters to the model, handle ${
        result.resultHandle?.slice(0, 9)
      }…; ${memory()}`,
    );
    if (round === 1) {
      const started = performance.now();
      if (first === undefined) throw new Error(`not stored: ${result.text.slice(-300)}`);
      const { text, pages } = await readAll(tools, first);
      firstDigest = await digest(text);
      console.log(
        `  read back: ${pages} pages, ${(text.length / MiB).toFixed(1)} Mi characters in ${
          ((performance.now() - started) / 1000).toFixed(1)
        } s, sha256 ${firstDigest}…; ${memory()}`,
      );
    }
  }
  const later = await tools.call("read_result", { handle: first });
  console.log(`  the first handle after four more: ${later.code ?? "readable"}`);
  return firstDigest;
}

const line = "0123456789 abcdefghij äöü 日本 🦕\n";
// 50 MB of UTF-8: whole lines, so no character is split.
const lineBytes = new TextEncoder().encode(line).length;
const original = line.repeat(Math.floor(SIZE / lineBytes));
console.log(
  `original: ${(new TextEncoder().encode(original).length / MiB).toFixed(1)} MiB UTF-8, ${
    (original.length / MiB).toFixed(1)
  } Mi characters, sha256 ${await digest(original)}…`,
);

{
  await using router = new ToolRouter({
    functions: [
      defineTool({ name: "dump", description: "50 MB", input: z.object({}), run: () => original }),
    ],
    resultBudget: { tokens: 8000, maxStoredBytes: 64 * MiB },
  });
  await run(
    "function tool, router's in-memory store, cap 64 MiB",
    await router.expose({ functions: ["dump"] }),
    "dump",
    {},
  );
}

const workspace = await Deno.makeTempDir({ prefix: "toolroute_budget_bench_" });
try {
  const bytes = new TextEncoder().encode(original);
  await Deno.writeFile(`${workspace}/big.txt`, bytes);
  await using router = new ToolRouter({
    builtins: builtinTools({ workspace, readMaxChars: SIZE + 1000 }),
    resultBudget: { tokens: 8000, maxStoredBytes: 64 * MiB },
  });
  await run(
    "read_file (built-in), sealed files in the workspace's .toolroute/results, cap 64 MiB",
    await router.expose({ builtins: ["read_file"] }),
    "read_file",
    { path: "big.txt" },
  );
} finally {
  await Deno.remove(workspace, { recursive: true });
}
