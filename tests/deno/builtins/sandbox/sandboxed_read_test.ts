import { assert, assertEquals, assertRejects } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools, resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { sessionFileAccess } from "../../../../src/deno/builtins/sandbox/session_file_access.ts";
import { resolveReadPath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const BWRAP = { bash: { sandbox: "bwrap" as const } };

Deno.test(
  "read_file with bash sandboxed reads ranges, read-only roots and refuses non-text through bwrap",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using f = await makeFixture();
    await using router = new ToolRouter({ builtins: builtinTools({ ...f.context, ...BWRAP }) });
    const tools = await router.expose({ builtins: ["read_file", "apply_patch"] });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join("");
    await Deno.writeTextFile(`${f.workspace}/many.txt`, lines);
    const read = JSON.parse(
      (await tools.call("read_file", { path: "many.txt", startLine: 3, endLine: 4 })).text,
    );
    assertEquals(read, {
      path: "many.txt",
      content: "line 3\nline 4\n",
      startLine: 3,
      endLine: 4,
      totalLines: 50,
      truncated: false,
    });
    const ro = JSON.parse((await tools.call("read_file", { path: `${f.readOnly}/ro.txt` })).text);
    assertEquals(ro.content, "read only\n");
    await Deno.writeFile(`${f.workspace}/bin.dat`, new Uint8Array([65, 0, 66]));
    const binary = await tools.call("read_file", { path: "bin.dat" });
    assert(binary.text.includes("not a text file"), binary.text);
    const missing = await tools.call("read_file", { path: "nope.txt" });
    assertEquals(missing.code, "tool_error");
    const patched = await tools.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: many.txt\n@@\n-line 2\n+LINE 2\n*** End Patch",
    });
    assertEquals(patched.isError, false, patched.text);
    assert(
      (await Deno.readTextFile(`${f.workspace}/many.txt`)).startsWith("line 1\nLINE 2\nline 3\n"),
    );
  },
);

Deno.test("read_file with bash sandboxed stops reading a huge file after the range", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using f = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools({ ...f.context, ...BWRAP }) });
  const tools = await router.expose({ builtins: ["read_file"] });
  {
    using file = await Deno.open(`${f.workspace}/huge.txt`, { create: true, write: true });
    await file.write(new TextEncoder().encode("first\nsecond\n" + "x".repeat(70_000) + "\n"));
    await file.truncate(1024 * 1024 * 1024); // 1 GiB, sparse
  }
  const started = performance.now();
  const result = JSON.parse((await tools.call("read_file", { path: "huge.txt", endLine: 2 })).text);
  assertEquals(result.content, "first\nsecond\n");
  assertEquals(result.totalLines, undefined);
  assert(performance.now() - started < 5000, "it read far more than the range");
});

Deno.test(
  "the session's open cannot follow a symlink swapped in after the check to an outside directory",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP });
    await Deno.mkdir(`${f.workspace}/d`);
    await Deno.writeTextFile(`${f.workspace}/d/secret.txt`, "inside\n");
    const path = resolveReadPath(ctx, "d/secret.txt");
    // The session runs before the swap, as it would in the race (a slow start under load is not
    // what this test is about: it once made the open fail with the start's ToolError instead).
    const sessions = new SandboxSessions({ startTimeoutMs: 60_000 });
    const access = sessionFileAccess(ctx, sessions);
    try {
      assert((await access.stat(`${f.workspace}/d/secret.txt`)).isFile);
      // The swap the race would make, done deterministically between the check and the read.
      await Deno.rename(`${f.workspace}/d`, `${f.workspace}/d.away`);
      await Deno.symlink(f.outside, `${f.workspace}/d`);
      assert((await Deno.lstat(`${f.workspace}/d`)).isSymlink, "the swap did not happen");
      const error = await assertRejects(() => access.open(path, "d/secret.txt"), Error);
      // Inside the sandbox the link leads nowhere: NotFound. Any other refusal would be fine too
      // (it does not follow the link), but must never carry the outside file's content.
      assert(
        error instanceof Deno.errors.NotFound || error instanceof ToolError,
        `${error.name}: ${error.message}`,
      );
      assert(!error.message.includes(SECRET) && !error.message.includes(f.outside));
    } finally {
      await sessions.close();
    }
  },
);

Deno.test("the session's open refuses a FIFO without opening it (it would block)", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP, commandTimeoutMs: 2000 });
  const made = await new Deno.Command("mkfifo", { args: [`${f.workspace}/pipe`] }).output();
  assert(made.success);
  const path = resolveReadPath(ctx, "pipe");
  const sessions = new SandboxSessions();
  try {
    const started = performance.now();
    const { info, file } = await sessionFileAccess(ctx, sessions).open(path, "pipe");
    assertEquals([info.isFifo, file], [true, undefined]);
    assert(performance.now() - started < 2000);
  } finally {
    await sessions.close();
  }
});

Deno.test(
  "the session's open gives every byte of files around the prefetch size, and of a /proc file of size 0",
  {
    ignore: skipWithoutBwrap(),
  },
  async () => {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP });
    const sessions = new SandboxSessions();
    const files = sessionFileAccess(ctx, sessions);
    const readAll = async (shown: string) => {
      // The sandbox's own /proc is opened as given: the host's check of a /proc path needs
      // --allow-all (Deno guards /proc), and this test is about the session's protocol.
      const path = shown.startsWith("/proc/")
        ? { real: shown, display: shown, root: "/proc" }
        : resolveReadPath(ctx, shown);
      const { file } = await files.open(path, shown);
      if (file === undefined) throw new Error(`"${shown}" did not open as a file`);
      const parts: number[] = [];
      const buffer = new Uint8Array(10_000);
      for (let n = await file.read(buffer); n !== null; n = await file.read(buffer)) {
        parts.push(...buffer.subarray(0, n));
      }
      await file.close();
      return new Uint8Array(parts);
    };
    try {
      for (const size of [0, 1, 65_535, 65_536, 65_537, 200_000]) {
        const bytes = Uint8Array.from({ length: size }, (_, i) => 97 + (i % 26));
        await Deno.writeFile(`${f.workspace}/s${size}.txt`, bytes);
        assertEquals(await readAll(`s${size}.txt`), bytes, `size ${size}`);
      }
      // A file that says it is empty and is not: read on past the prefetch of one byte.
      const limits = new TextDecoder().decode(await readAll("/proc/self/limits"));
      assert(limits.startsWith("Limit"), limits);
    } finally {
      await sessions.close();
    }
  },
);
