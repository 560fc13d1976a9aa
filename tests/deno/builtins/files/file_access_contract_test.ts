// The file tools' contract, run against both file accesses: on the host (bash off) and inside
// the sandbox session (bash "bwrap"). The same calls on two identical workspaces must give the
// same results (text, error codes) and leave the same files behind.
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import {
  resolveBuiltinContext,
  type ResolvedContext,
} from "../../../../src/deno/builtins/builtin_context.ts";
import type {
  FileAccess,
  PutExpectation,
} from "../../../../src/deno/builtins/files/file_access.ts";
import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { resolveWritePath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { sessionFileAccess } from "../../../../src/deno/builtins/sandbox/session_file_access.ts";
import { type Fixture, makeFixture, SECRET } from "../_fixture.ts";

type Call = [tool: string, args: Record<string, unknown>];

// big.txt: 3000 rows of 40 bytes, about 117 KiB.
const PAD = "x".repeat(30);
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
  // Over the session's 64 KiB first read: the rest comes in reads that end at the file's end.
  ["apply_patch", {
    patch: `*** Begin Patch\n*** Update File: big.txt\n@@\n-row 2999 ${PAD}\n+ROW 2999 ${PAD}\n` +
      "*** End Patch",
  }],
  ["read_file", { path: "big.txt", startLine: 2998, endLine: 3000 }],
];

async function prepare(base: string): Promise<BuiltinContext> {
  const ws = `${base}/ws`;
  await Deno.mkdir(`${ws}/dir`, { recursive: true });
  await Deno.mkdir(`${ws}/.git`);
  await Deno.writeTextFile(`${ws}/.git/config`, "[core]\n");
  await Deno.writeTextFile(`${ws}/hello.txt`, "hello\nworld\n");
  await Deno.writeTextFile(`${ws}/many.txt`, lines);
  const rows = Array.from({ length: 3000 }, (_, i) => `row ${i + 1} ${PAD}\n`);
  await Deno.writeTextFile(`${ws}/big.txt`, rows.join(""));
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

/** What `put` with `expect` does to each kind of target, through one file access. */
async function putPreconditions(files: FileAccess, ctx: ResolvedContext, f: Fixture) {
  const ws = f.workspace;
  const data = new TextEncoder().encode("new\n");
  const put = async (name: string, expect: PutExpectation, mode?: number) => {
    const result = await files.put(resolveWritePath(ctx, name), data, {
      shown: name,
      expect,
      mode,
    });
    const { isFile, isDirectory, isSymlink, isFifo } = result.before ?? {};
    return {
      name,
      expect,
      written: result.written,
      before: { isFile, isDirectory, isSymlink, isFifo },
    };
  };
  const bits = async (name: string) => (await Deno.lstat(`${ws}/${name}`)).mode! & 0o7777;
  await Deno.mkdir(`${ws}/dir`);
  const fifo = await new Deno.Command("mkfifo", { args: [`${ws}/pipe`] }).output();
  assert(fifo.success, "mkfifo failed");
  await Deno.writeTextFile(`${ws}/kept.sh`, "old\n");
  await Deno.chmod(`${ws}/kept.sh`, 0o750);
  await Deno.writeTextFile(`${ws}/setid.sh`, "old\n");
  await Deno.chmod(`${ws}/setid.sh`, 0o7755);
  await Deno.writeTextFile(`${ws}/given.sh`, "old\n");
  await Deno.chmod(`${ws}/given.sh`, 0o755);
  // Checked while absent, then a symlink to an outside file swapped in before the put.
  const swapped = resolveWritePath(ctx, "swapped.txt");
  await Deno.symlink(`${f.outside}/secret.txt`, `${ws}/swapped.txt`);
  const results = [
    await put("dir", "file-or-absent"),
    await put("pipe", "file-or-absent"),
    await put("hello.txt", "absent"),
    await put("dir", "absent"),
    await put("kept.sh", "file-or-absent"),
    await put("setid.sh", "file-or-absent"),
    await put("given.sh", "file-or-absent", 0o600),
    await put("fresh.txt", "absent"),
    await put("fresh2.txt", "file-or-absent"),
  ];
  const swap = await files.put(swapped, data, { shown: "swapped.txt", expect: "file-or-absent" });
  assertEquals([swap.written, swap.before?.isSymlink], [false, true]);
  assertEquals(await Deno.readTextFile(`${f.outside}/secret.txt`), `${SECRET}\n`);
  assertEquals(await Deno.readTextFile(`${ws}/hello.txt`), "hello\nworld\n");
  assertEquals(await Deno.readTextFile(`${ws}/kept.sh`), "new\n");
  assertEquals(await Deno.readTextFile(`${ws}/fresh.txt`), "new\n");
  assertEquals([await bits("kept.sh"), await bits("setid.sh"), await bits("given.sh")], [
    0o750,
    0o755,
    0o600,
  ]);
  const names: string[] = [];
  for await (const entry of Deno.readDir(ws)) names.push(entry.name);
  // Nothing written where the target did not fit, and no temporary file left anywhere.
  assertEquals(names.sort(), [
    "dir",
    "fresh.txt",
    "fresh2.txt",
    "given.sh",
    "hello.txt",
    "kept.sh",
    "pipe",
    "setid.sh",
    "swapped.txt",
  ]);
  for await (const _ of Deno.readDir(`${ws}/dir`)) throw new Error("put wrote into the directory");
  return results;
}

Deno.test({
  name:
    "put() with expect refuses what is not a regular file (or anything, for absent), keeps permission bits but not setuid, on the host and in the sandbox",
  ignore: skipWithoutBwrap(),
  async fn() {
    const seen: Awaited<ReturnType<typeof putPreconditions>>[] = [];
    for (const sandboxed of [false, true]) {
      await using f = await makeFixture();
      const ctx = resolveBuiltinContext({ ...f.context, bash: sandboxed && { sandbox: "bwrap" } });
      const sessions = new SandboxSessions();
      try {
        const files = sandboxed ? sessionFileAccess(ctx, sessions) : hostFileAccess(ctx);
        assertEquals(files.where, sandboxed ? "sandbox" : "host");
        seen.push(await putPreconditions(files, ctx, f));
      } finally {
        await sessions.close();
      }
    }
    assertEquals(seen[1], seen[0]);
    const written = (name: string) => seen[0].find((r) => r.name === name)?.written;
    assertEquals(
      ["dir", "pipe", "hello.txt", "kept.sh", "setid.sh", "fresh.txt"].map(written),
      [false, false, false, true, true, true],
    );
    assertEquals(seen[0][1].before.isFifo, true);
  },
});
