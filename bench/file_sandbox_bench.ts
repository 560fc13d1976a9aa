/**
 * Cost of the file sandbox: with bash sandboxed (`bash: { sandbox: "bwrap" }`), read_file,
 * write_file and apply_patch do their file-system accesses in the context's sandbox session (one
 * long-lived bubblewrap; see `bench/sandbox_session_bench.ts` for medians, p99 and bash). Each
 * group compares the same call with bash off (in process, the baseline) and with bwrap.
 *
 * Run: deno bench --config bench/deno.json --no-prompt -A bench/file_sandbox_bench.ts
 */
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const base = await Deno.makeTempDir({ prefix: "toolroute_fsb_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const workspace = `${base}/ws`;
await Deno.mkdir(workspace);
await Deno.writeTextFile(`${workspace}/small.txt`, "a\nb\nc\n");
await Deno.writeTextFile(
  `${workspace}/patch.txt`,
  Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n") + "\n",
);
const names = ["read_file", "write_file", "apply_patch"];
const inProcess = await new ToolRouter({ builtins: builtinTools({ workspace }) })
  .expose({ builtins: names });
const sandboxed = await new ToolRouter({
  builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
}).expose({ builtins: names });

const write = '{"path":"out.txt","content":"hello\\n"}';
const read = '{"path":"small.txt"}';
let flip = false;
const patch = () => {
  flip = !flip;
  const [from, to] = flip ? ["line 10", "LINE 10"] : ["LINE 10", "line 10"];
  return JSON.stringify({
    patch: `*** Begin Patch\n*** Update File: patch.txt\n@@\n-${from}\n+${to}\n*** End Patch`,
  });
};

Deno.bench("write_file, bash off (in process)", { group: "write", baseline: true }, async () => {
  await inProcess.invoke("write_file", write);
});
Deno.bench("write_file, bash bwrap (in bubblewrap)", { group: "write" }, async () => {
  await sandboxed.invoke("write_file", write);
});
Deno.bench("read_file, bash off (in process)", { group: "read", baseline: true }, async () => {
  await inProcess.invoke("read_file", read);
});
Deno.bench("read_file, bash bwrap (in bubblewrap)", { group: "read" }, async () => {
  await sandboxed.invoke("read_file", read);
});
Deno.bench("apply_patch, bash off (in process)", { group: "patch", baseline: true }, async () => {
  await inProcess.invoke("apply_patch", patch());
});
Deno.bench("apply_patch, bash bwrap (in bubblewrap)", { group: "patch" }, async () => {
  await sandboxed.invoke("apply_patch", patch());
});
