// Attacks on the synchronous host path checks: a kept canonical root swapped for a symlink to a
// sibling sharing its name as a prefix, FIFOs where a file is expected (a synchronous open of one
// would block the whole server), and `/proc/self` links. Bash is off: the host reads the files.
import { assert, assertEquals } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { SECRET } from "../_fixture.ts";

async function tools(workspace: string): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: false }) });
  const tools = await router.expose({ builtins: ["read_file", "write_file", "glob", "grep"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

async function mkfifo(path: string): Promise<void> {
  const { success } = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert(success, `mkfifo ${path}`);
}

/** Calls a tool while a timer counts: a synchronous call blocked on a FIFO would stop the count. */
async function timed(t: ToolSet, name: string, args: Record<string, unknown>) {
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  const started = performance.now();
  const result = await t.call(name, args);
  clearInterval(ticker);
  return { result, ms: performance.now() - started, ticks };
}

Deno.test("a kept canonical workspace swapped for a symlink to a sibling named with its prefix fails closed", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_roots_attack_" }));
  try {
    const ws = `${base}/ws`;
    await Deno.mkdir(ws);
    await Deno.mkdir(`${base}/ws.evil`);
    await Deno.writeTextFile(`${ws}/a.txt`, "inside\n");
    await Deno.writeTextFile(`${base}/ws.evil/a.txt`, `${SECRET}\n`);
    await using t = await tools(ws);
    assertEquals((await t.tools.call("read_file", { path: "a.txt" })).isError, false); // kept now
    await Deno.rename(ws, `${base}/ws.old`);
    await Deno.symlink(`${base}/ws.evil`, ws);
    let attempts = 0;
    for (
      const [name, args] of [
        ["read_file", { path: "a.txt" }],
        ["write_file", { path: "a.txt", content: "x" }],
        ["glob", { pattern: "**/*" }],
        ["grep", { pattern: "TOP" }],
      ] as const
    ) {
      attempts++;
      const result = await t.tools.call(name, args);
      assert(!result.text.includes(SECRET), `${name}: ${result.text}`);
      if (name !== "glob" && name !== "grep") assert(result.isError, `${name}: ${result.text}`);
    }
    assert(attempts > 0);
    assertEquals(await Deno.readTextFile(`${base}/ws.evil/a.txt`), `${SECRET}\n`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("FIFOs as a file, a .gitignore and a symlink target never block the server", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_fifo_attack_" }));
  try {
    await Deno.mkdir(`${ws}/d`);
    await Deno.writeTextFile(`${ws}/d/a.txt`, "needle\n");
    await mkfifo(`${ws}/pipe.txt`);
    await mkfifo(`${ws}/.gitignore`);
    await mkfifo(`${ws}/d/.gitignore`);
    await Deno.symlink(`${ws}/pipe.txt`, `${ws}/link.txt`);
    await using t = await tools(ws);
    let calls = 0;
    for (
      const [name, args] of [
        ["read_file", { path: "pipe.txt" }],
        ["read_file", { path: "link.txt" }],
        ["write_file", { path: "pipe.txt", content: "x" }],
        ["glob", { pattern: "**/*" }],
        ["grep", { pattern: "needle" }],
        ["grep", { pattern: "needle", path: "pipe.txt" }],
      ] as const
    ) {
      const { result, ms, ticks } = await timed(t.tools, name, args);
      calls++;
      assert(ms < 5000, `${name} ${JSON.stringify(args)} took ${ms} ms: ${result.text}`);
      // The event loop kept running during the call (no synchronous open of a FIFO).
      assert(ms < 100 || ticks > ms / 20 / 3, `${name}: ${ticks} ticks in ${ms} ms`);
    }
    assert(calls > 0);
    const grep = await t.tools.call("grep", { pattern: "needle" });
    assert(grep.text.includes("a.txt"), grep.text);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("links to /proc/self (the server's root, cwd, fds, environ) are refused", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_proc_attack_" }));
  try {
    const links = [
      "/proc/self/root/etc/passwd",
      "/proc/self/environ",
      "/proc/self/fd/0",
      "/proc/self/cwd",
      "/proc/self/mem",
    ];
    links.forEach((target, i) => Deno.symlinkSync(target, `${ws}/l${i}`));
    await using t = await tools(ws);
    let tried = 0;
    for (let i = 0; i < links.length; i++) {
      for (const path of [`l${i}`, links[i]]) {
        const { result, ms } = await timed(t.tools, "read_file", { path });
        tried++;
        assert(result.isError, `${path}: ${result.text}`);
        assert(ms < 5000);
      }
    }
    assert(tried > 0);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
