import { assert, assertEquals, assertRejects } from "@std/assert";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { execInSession } from "../../../../src/deno/builtins/sandbox/session_exec.ts";
import { sessionSearchAccess } from "../../../../src/deno/builtins/sandbox/session_search_access.ts";
import { SearchBudget } from "../../../../src/deno/builtins/search/search_budget.ts";
import { type TreeView, walkTree } from "../../../../src/deno/builtins/search/walk_tree.ts";
import { HostTree } from "../../../../src/deno/builtins/search/host_tree.ts";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { run, sandboxed, searchTools, writeTree } from "../search/_search_fixture.ts";

const budget = (ms = 30_000) => new SearchBudget(new AbortController().signal, ms, 1_000_000);

/** Lists a workspace through the session and walks it like glob does. */
async function listAll(access: ReturnType<typeof sessionSearchAccess>, root: string) {
  const view = await access.list(root, { start: "", gitignore: true, budget: budget() });
  const files: string[] = [];
  await walkTree(view, {
    start: "",
    gitignore: true,
    budget: budget(),
    onFile: (path) => {
      files.push(path);
    },
  });
  return files;
}

/** Reads files through the session as grep does (all, or those with a literal), as `path=text`. */
async function readAll(
  access: ReturnType<typeof sessionSearchAccess>,
  root: string,
  files: string[],
  literal?: string,
) {
  const read: string[] = [];
  await access.read(root, {
    files,
    budget: budget(),
    literal: literal === undefined ? undefined : new TextEncoder().encode(literal),
  }, (path, data) => {
    read.push(`${path}=${new TextDecoder().decode(data)}`);
  });
  return read;
}

Deno.test({
  name: "a search in the session cannot follow a folder swapped for a symlink to the outside",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using sessions = closing(new SandboxSessions());
    const ctx = resolveBuiltinContext(sandboxed(f.context));
    const access = sessionSearchAccess(ctx, sessions.value);
    await writeTree(f.workspace, { "d/secret.txt": "inside\n" });
    const files = await listAll(access, f.workspace);
    assertEquals(files, ["d/secret.txt", "hello.txt"]);
    // The swap a racing sandboxed command would make, done deterministically between the steps.
    await Deno.rename(`${f.workspace}/d`, `${f.workspace}/d.away`);
    await Deno.symlink(f.outside, `${f.workspace}/d`);
    assert((await Deno.lstat(`${f.workspace}/d`)).isSymlink, "the swap happened");
    const read = await readAll(access, f.workspace, files);
    assertEquals(read, ["hello.txt=hello\nworld\n"]);
    assert(!read.join().includes(SECRET));
  },
});

Deno.test({
  name:
    "a search in the session passes over files swapped for a FIFO or a symlink since the listing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using sessions = closing(new SandboxSessions());
    const ctx = resolveBuiltinContext(sandboxed(f.context));
    const access = sessionSearchAccess(ctx, sessions.value);
    await writeTree(f.workspace, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const files = await listAll(access, f.workspace);
    assertEquals(files, ["a.txt", "b.txt", "c.txt", "hello.txt"]);
    await Deno.remove(`${f.workspace}/a.txt`);
    const fifo = await new Deno.Command("mkfifo", { args: [`${f.workspace}/a.txt`] }).output();
    assert(fifo.success, "the FIFO was made");
    await Deno.remove(`${f.workspace}/b.txt`);
    await Deno.symlink(`${f.workspace}/hello.txt`, `${f.workspace}/b.txt`);
    const started = performance.now();
    const read = await readAll(access, f.workspace, files);
    assertEquals(read, ["c.txt=c\n", "hello.txt=hello\nworld\n"]);
    assert(performance.now() - started < 5000, "the FIFO was never opened");
  },
});

Deno.test({
  name: "a search in the session never sees another context's session /tmp nor the host's /tmp",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using sessions = closing(new SandboxSessions());
    const hostTmp = await Deno.makeTempDir({ dir: "/tmp", prefix: "toolroute_i13_" });
    try {
      await Deno.writeTextFile(`${hostTmp}/x.txt`, `${SECRET}\n`);
      // Context A leaves the secret in its own sandbox's /tmp, at the same path.
      const a = resolveBuiltinContext({ ...sandboxed(f.context), commandTimeoutMs: 20_000 });
      const wrote = await execInSession(a, {
        sessions: sessions.value,
        command: {
          command:
            `mkdir -p ${hostTmp} && echo ${SECRET} > ${hostTmp}/x.txt && cat ${hostTmp}/x.txt`,
          cwd: f.workspace,
          env: { PATH: "/usr/bin:/bin" },
        },
        limits: { timeoutMs: 20_000, maxChars: 10_000, signal: new AbortController().signal },
      });
      assert(wrote.stdout.includes(SECRET), "context A wrote its /tmp");
      // Context B (another sandbox) has a folder swapped for a link to that path after listing.
      const b = resolveBuiltinContext(sandboxed(f.context));
      const access = sessionSearchAccess(b, sessions.value);
      await writeTree(f.workspace, { "t/x.txt": "mine\n" });
      const files = await listAll(access, f.workspace);
      assertEquals(files, ["hello.txt", "t/x.txt"]);
      await Deno.remove(`${f.workspace}/t`, { recursive: true });
      await Deno.symlink(hostTmp, `${f.workspace}/t`);
      assertEquals(await readAll(access, f.workspace, files, SECRET), []);
      // And a link to it is never listed.
      assertEquals(await listAll(access, f.workspace), ["hello.txt"]);
    } finally {
      await Deno.remove(hostTmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "glob and grep in the session yield nothing through a symlink pointing out",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await Deno.symlink(f.outside, `${f.workspace}/out`);
    await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/secret.txt`);
    await using s = await searchTools(sandboxed(f.context));
    const listed = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "**/*" });
    assertEquals(listed.paths, ["hello.txt"]);
    const found = await run<{ matches: unknown[] }>(s.tools, "grep", {
      pattern: "TOP-SECRET",
      includeIgnored: true,
    });
    assertEquals(found.matches, []);
    const regex = await run<{ matches: unknown[] }>(s.tools, "grep", { pattern: "SEC.ET" });
    assertEquals(regex.matches, []);
  },
});

Deno.test({
  name: "glob and grep in the session handle long names and names with newlines and spaces",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const long = `${"n".repeat(120)}/${"m".repeat(150)}.txt`;
    await writeTree(f.workspace, { [long]: "needle\n", "odd/we\nird name.txt": "needle\n" });
    await using s = await searchTools(sandboxed(f.context));
    const listed = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "**/*.txt" });
    assertEquals(listed.paths, ["hello.txt", long, "odd/we\nird name.txt"]);
    const found = await run<{ matches: { path: string }[] }>(s.tools, "grep", {
      pattern: "needle",
    });
    assertEquals(found.matches.map((m) => m.path), [long, "odd/we\nird name.txt"]);
    const regex = await run<{ matches: { path: string }[] }>(s.tools, "grep", {
      pattern: "ne+dle$",
    });
    assertEquals(regex.matches.map((m) => m.path), [long, "odd/we\nird name.txt"]);
  },
});

Deno.test({
  name:
    "a search in the session stops at its deadline mid-walk and on abort, and the session lives on",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using sessions = closing(new SandboxSessions());
    const ctx = resolveBuiltinContext(sandboxed(f.context));
    const access = sessionSearchAccess(ctx, sessions.value);
    const tree: Record<string, string> = {};
    for (let i = 0; i < 6000; i++) tree[`d${i % 300}/e${i % 7}/f${i}.txt`] = "x\n";
    await writeTree(f.workspace, tree);
    assertEquals((await listAll(access, f.workspace)).length, 6001); // the session is warm
    const lease = await sessions.value.acquire(ctx);
    const session = lease.session;
    lease.release();
    // A deadline in the middle of the walk: a timeout, soon after it.
    const started = performance.now();
    const timeout = await assertRejects(
      () => access.list(f.workspace, { start: "", gitignore: true, budget: budget(15) }),
      ToolError,
    );
    assertEquals(timeout.code, "timeout");
    assert(performance.now() - started < 2000, `stopped after ${performance.now() - started} ms`);
    // Aborted while it runs: the abort reason.
    const controller = new AbortController();
    const pending = access.list(f.workspace, {
      start: "",
      gitignore: true,
      budget: new SearchBudget(controller.signal, 30_000, 1000),
    });
    setTimeout(() => controller.abort(new Error("caller gave up")), 5);
    await assertRejects(() => pending, Error, "caller gave up");
    // The same session still serves.
    const files = await listAll(access, f.workspace);
    assertEquals(files.length, 6001);
    const again = await sessions.value.acquire(ctx);
    assert(again.session === session && !session.ended, "the session lived on");
    again.release();
  },
});

Deno.test({
  name: "a listing in the session keeps to the folders a glob with a base enters, as in process",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using sessions = closing(new SandboxSessions());
    const access = sessionSearchAccess(resolveBuiltinContext(sandboxed(f.context)), sessions.value);
    // Three .gitignore files of 30,000 bytes: more than the 64 KiB the supervisor holds back
    // before it writes, so frames go out both held and at once.
    const ignored = (name: string) => `${"# padding\n".repeat(3000)}${name}\n`;
    await writeTree(f.workspace, {
      ".gitignore": ignored("*.log"),
      "src/.gitignore": ignored("gen/"),
      "src/io/.gitignore": ignored("tmp.js"),
      "src/io/a.js": "",
      "src/io/tmp.js": "",
      "src/io/b.log": "",
      "src/io/gen/c.js": "",
      "src/util/d.js": "",
      "tests/e.js": "",
    });
    const walked = async (view: TreeView, start: string, only: string) => {
      const files: string[] = [];
      const options = { start, only, gitignore: true, budget: budget() };
      await walkTree(view, { ...options, onFile: (path) => void files.push(path) });
      return files;
    };
    for (const [start, only] of [["", "src/io"], ["src", "io"], ["", ""], ["src", ""]]) {
      const options = { start, only, gitignore: true, budget: budget() };
      const listed = await access.list(f.workspace, options);
      assertEquals(
        await walked(listed, start, only),
        await walked(new HostTree(f.workspace), start, only),
        `start ${start}, only ${only}`,
      );
      // Folders off the way are named, not listed.
      assertEquals(
        (await listed.list("src/util", () => Promise.resolve()))?.length,
        only === "" ? 1 : 0,
      );
    }
  },
});

/** Closes a `SandboxSessions` on dispose. */
function closing(sessions: SandboxSessions): { value: SandboxSessions } & AsyncDisposable {
  return { value: sessions, [Symbol.asyncDispose]: () => sessions.close() };
}

Deno.test({
  name: "grep in the session over many files finds exactly what grep in process finds",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const tree: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      tree[`d${i % 7}/f${i}.txt`] = i % 13 === 0 ? `a\nthe needle ${i}\nb\n` : "nothing\n";
    }
    tree["-e"] = "needle in a file named like an option\n";
    tree["d1/--"] = "needle\n";
    tree["d2/sp ace\nnl.txt"] = "needle\n";
    await writeTree(f.workspace, tree);
    await Deno.writeFile(`${f.workspace}/bin.dat`, new TextEncoder().encode("needle\0binary"));
    await Deno.symlink(`${f.workspace}/d0/f0.txt`, `${f.workspace}/link.txt`);
    await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/out.txt`);
    await Deno.writeTextFile(`${f.outside}/secret.txt`, `needle ${SECRET}\n`);
    await using host = await searchTools(f.context);
    await using session = await searchTools(sandboxed(f.context));
    for (const pattern of ["needle", "needle [0-9]+"]) {
      const args = { pattern, maxResults: 1000 };
      const inProcess = await run<{ matches: { path: string }[] }>(host.tools, "grep", args);
      const inSession = await run<{ matches: { path: string }[] }>(session.tools, "grep", args);
      assertEquals(inSession, inProcess);
      assert(inSession.matches.length >= 24, `${pattern}: ${inSession.matches.length} matches`);
      assert(!JSON.stringify(inSession).includes(SECRET));
    }
  },
});

/** A session that answers every search with the given stream frames, then `ok`. */
function fakeSessions(frames: [1 | 2, string | Uint8Array][]): SandboxSessions {
  const session = {
    ended: false,
    fail(why: string) {
      this.ended = true;
      return new ToolError("tool_error", `out of protocol (${why})`);
    },
    notify() {},
    request(
      _header: Record<string, unknown>,
      _body: Uint8Array | undefined,
      options: { onStream?: (stream: 1 | 2, bytes: Uint8Array) => void },
    ) {
      try {
        for (const [stream, data] of frames) {
          options.onStream?.(
            stream,
            typeof data === "string" ? new TextEncoder().encode(data) : data,
          );
        }
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.resolve({ header: { ok: { stopped: null } }, body: new Uint8Array() });
    },
  };
  return { acquire: () => Promise.resolve({ session, release: () => {} }) } as never;
}

Deno.test("sessionSearchAccess refuses a listing or files out of protocol and ends the session", async () => {
  const ctx = resolveBuiltinContext({ workspace: "/w", bash: { sandbox: "bwrap" } });
  const listing = (frames: [1 | 2, string][], start = "") =>
    sessionSearchAccess(ctx, fakeSessions(frames)).list("/w", {
      start,
      gitignore: true,
      budget: budget(),
    });
  const good = await listing([[1, "fa.txt\0dsub\0fsub/b.txt\0"], [2, "sub\0*.log\n"]]);
  assertEquals(await good.list("sub", () => Promise.resolve()), [{ name: "b.txt", kind: "file" }]);
  assertEquals(good.gitignore("sub"), "*.log\n");
  for (
    const bad of [
      [[1, "f../x\0"]],
      [[1, "f/etc/passwd\0"]],
      [[1, "fa//b\0"]],
      [[1, "xa\0"]],
      [[1, "fa"]],
      [[2, "../up\0*"]],
    ] as [1 | 2, string][][]
  ) {
    await assertRejects(() => listing(bad), ToolError, "out of protocol");
  }
  await assertRejects(() => listing([[1, "fother/a.txt\0"]], "sub"), ToolError, "out of protocol");
  const entry = (index: number, text: string) => {
    const data = new TextEncoder().encode(text);
    const bytes = new Uint8Array(8 + data.length);
    new DataView(bytes.buffer).setUint32(0, index);
    new DataView(bytes.buffer).setUint32(4, data.length);
    bytes.set(data, 8);
    return bytes;
  };
  const read = (frames: [1 | 2, Uint8Array][]) => {
    const got: string[] = [];
    return sessionSearchAccess(ctx, fakeSessions(frames)).read("/w", {
      files: ["a", "b"],
      budget: budget(),
    }, (path, data) => void got.push(`${path}=${new TextDecoder().decode(data)}`)).then(() => got);
  };
  assertEquals(await read([[1, entry(0, "x")], [1, entry(1, "y")]]), ["a=x", "b=y"]);
  for (const bad of [[entry(1, "y"), entry(0, "x")], [entry(2, "z")], [entry(0, "\0")]]) {
    await assertRejects(() => read(bad.map((b) => [1, b])), ToolError, "out of protocol");
  }
  await assertRejects(() => read([[1, entry(0, "xxxxx").subarray(0, 10)]]), ToolError);
  await assertRejects(() => read([[1, entry(0, "x").subarray(0, 6)]]), ToolError);
});
