// The file tools' contract, run against both file accesses: on the host (bash off) and inside
// the sandbox session (bash "bwrap"). The same calls on two identical workspaces must give the
// same results (text, error codes) and leave the same files behind.
import { assertEquals } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

type Call = [tool: string, args: Record<string, unknown>];

const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`).join("");
const CALLS: Call[] = [
  ["read_file", { path: "hello.txt" }],
  ["read_file", { path: "many.txt", startLine: 5, endLine: 7 }],
  ["read_file", { path: "many.txt", maxChars: 30 }],
  ["read_file", { path: "many.txt", startLine: 99 }],
  ["read_file", { path: "bin.dat" }],
  ["read_file", { path: "dir" }],
  ["read_file", { path: "pipe" }],
  ["read_file", { path: "missing.txt" }],
  ["read_file", { path: "../outside.txt" }],
  ["read_file", { path: "link_in.txt" }],
  ["write_file", { path: "new/deep/a.txt", content: "a\n" }],
  ["write_file", { path: "new/deep/a.txt", content: "b\n", mode: "append" }],
  ["write_file", { path: "new/deep/a.txt", content: "c\n", mode: "create" }],
  ["write_file", { path: "exec.sh", content: "#!/bin/sh\necho hi\n" }],
  ["write_file", { path: "dir", content: "x" }],
  ["write_file", { path: "pipe", content: "x" }],
  ["write_file", { path: ".git/config", content: "x" }],
  ["write_file", { path: "../outside.txt", content: "x" }],
  ["write_file", { path: "hard.txt", content: "replaced\n" }],
  ["apply_patch", {
    patch: "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+HELLO\n" +
      "*** Add File: added/x.txt\n+x\n*** Delete File: many.txt\n*** End Patch",
  }],
  ["apply_patch", {
    patch: "*** Begin Patch\n*** Update File: hello.txt\n*** Move to: moved/h.txt\n@@\n-HELLO\n" +
      "+hello again\n*** End Patch",
  }],
  ["apply_patch", {
    patch: "*** Begin Patch\n*** Add File: ok.txt\n+ok\n*** Add File: dir/x/../../../x.txt\n" +
      "+x\n*** End Patch",
  }],
  ["apply_patch", {
    patch: "*** Begin Patch\n*** Update File: exec.sh\n@@\n-echo hi\n+echo bye\n*** End Patch",
  }],
  ["apply_patch", {
    patch: "*** Begin Patch\n*** Update File: bin.dat\n@@\n-x\n+y\n*** End Patch",
  }],
  ["read_file", { path: "moved/h.txt" }],
  ["read_file", { path: "new/deep/a.txt" }],
];

async function prepare(base: string): Promise<BuiltinContext> {
  const ws = `${base}/ws`;
  await Deno.mkdir(`${ws}/dir`, { recursive: true });
  await Deno.mkdir(`${ws}/.git`);
  await Deno.writeTextFile(`${ws}/.git/config`, "[core]\n");
  await Deno.writeTextFile(`${ws}/hello.txt`, "hello\nworld\n");
  await Deno.writeTextFile(`${ws}/many.txt`, lines);
  await Deno.writeFile(`${ws}/bin.dat`, new Uint8Array([120, 0, 10]));
  await Deno.writeTextFile(`${base}/outside.txt`, "outside\n");
  await Deno.link(`${base}/outside.txt`, `${ws}/hard.txt`);
  await Deno.symlink(`${ws}/hello.txt`, `${ws}/link_in.txt`);
  const fifo = await new Deno.Command("mkfifo", { args: [`${ws}/pipe`] }).output();
  if (!fifo.success) throw new Error("mkfifo failed");
  return { workspace: ws };
}

async function snapshot(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    const info = await Deno.lstat(path);
    const mode = (info.mode! & 0o777).toString(8);
    if (entry.isDirectory) out.push(...await snapshot(path, `${prefix}${entry.name}/`));
    else if (entry.isFile) {
      out.push(`${prefix}${entry.name} ${mode} ${await Deno.readTextFile(path)}`);
    } else out.push(`${prefix}${entry.name} (${entry.isSymlink ? "symlink" : "other"})`);
  }
  return out;
}

async function run(extra: Partial<BuiltinContext>) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_contract_" }));
  try {
    const context = { ...await prepare(base), ...extra };
    await using router = new ToolRouter({ builtins: builtinTools(context) });
    const tools = await router.expose({ builtins: ["read_file", "write_file", "apply_patch"] });
    const results = [];
    for (const [tool, args] of CALLS) {
      const result = await tools.call(tool, args);
      results.push({
        call: `${tool} ${JSON.stringify(args)}`,
        isError: result.isError,
        code: result.code,
        text: result.text,
      });
    }
    return { results, disk: await snapshot(base) };
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test({
  name:
    "every file tool gives the same results and leaves the same files on the host and in the sandbox",
  ignore: skipWithoutBwrap(),
  async fn() {
    const host = await run({});
    const sandbox = await run({ bash: true });
    for (let i = 0; i < CALLS.length; i++) assertEquals(sandbox.results[i], host.results[i]);
    assertEquals(sandbox.disk, host.disk);
    // The contract ran: some calls succeeded and some were refused.
    assertEquals(host.results.some((r) => r.isError) && host.results.some((r) => !r.isError), true);
  },
});
