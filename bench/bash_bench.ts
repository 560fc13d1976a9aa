// Run: deno bench --config bench/deno.json --no-prompt -A bench/bash_bench.ts (or deno task bench)
// `bash exec true` through the router and the bash tool against spawning bash directly
// (target: within 1.3x), and the same under bubblewrap (ratio reported).
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_bench_" }));
const unconfined = await new ToolRouter({
  builtins: builtinTools({ workspace, bash: { sandbox: "none" } }),
}).expose({ builtins: ["bash"] });
const sandboxed = await new ToolRouter({
  builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
}).expose({ builtins: ["bash"] });
const EXEC_TRUE = '{"command":"true"}';

async function invoke(tools: typeof unconfined): Promise<void> {
  const text = await tools.invoke("bash", EXEC_TRUE);
  if (!text.startsWith('{"exitCode":0')) throw new Error(`bash failed: ${text}`);
}

Deno.bench(
  "raw Deno.Command bash -c true",
  { group: "bash exec true", baseline: true },
  async () => {
    await new Deno.Command("bash", { args: ["-c", "true"] }).output();
  },
);

Deno.bench("bash tool exec true (sandbox none)", { group: "bash exec true" }, async () => {
  await invoke(unconfined);
});

Deno.bench("bash tool exec true (sandbox bwrap)", { group: "bash exec true" }, async () => {
  await invoke(sandboxed);
});

Deno.bench(
  "raw bwrap … bash -c true",
  { group: "bash exec true under bwrap", baseline: true },
  async () => {
    await new Deno.Command("bwrap", {
      args: [
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--",
        "bash",
        "-c",
        "true",
      ],
    }).output();
  },
);

Deno.bench(
  "bash tool exec true (sandbox bwrap) ",
  { group: "bash exec true under bwrap" },
  async () => {
    await invoke(sandboxed);
  },
);

globalThis.addEventListener("unload", () => Deno.removeSync(workspace, { recursive: true }));
