import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import {
  FileAuditSink,
  type FileAuditSinkOptions,
} from "../../../src/deno/audit/file_audit_sink.ts";
import type { AuditRecord } from "../../../src/core/audit_sink.ts";

function record(i: number): AuditRecord {
  return {
    time: new Date().toISOString(),
    tool: "echo",
    decision: "allow",
    argumentsDigest: `sha256-${"0".repeat(64)}`,
    durationMs: i,
    outcome: "ok",
  };
}

Deno.test("FileAuditSink appends one JSON line per record, in order, and keeps earlier lines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/audit.jsonl`;
    const first = await FileAuditSink.open(path);
    for (let i = 0; i < 100; i++) first.write(record(i));
    await first.close();
    const second = await FileAuditSink.open(path);
    second.write(record(100));
    await second.close();
    const lines = (await Deno.readTextFile(path)).split("\n");
    assertEquals(lines.pop(), "");
    assertEquals(lines.map((line) => JSON.parse(line).durationMs), [...Array(101).keys()]);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink writeLater builds each record when its batch is written, in order with write", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/audit.jsonl`;
    const sink = await FileAuditSink.open(path);
    let built = 0;
    for (let i = 0; i < 10; i++) {
      if (i % 2 === 0) sink.write(record(i));
      else sink.writeLater(() => (built++, record(i)));
    }
    assertEquals(built, 0);
    await sink.close();
    assertEquals(built, 5);
    const lines = (await Deno.readTextFile(path)).trim().split("\n");
    assertEquals(lines.map((line) => JSON.parse(line).durationMs), [...Array(10).keys()]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A sink writing into a FIFO that nobody reads yet: its first big batch fills the pipe and its
 * write stalls, as a slow disk's would, so the queue really fills. `read()` starts reading and
 * resolves with everything written once the sink closes.
 */
async function stalledSink(dir: string, options: FileAuditSinkOptions) {
  const path = `${dir}/audit.fifo`;
  assert((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
  // Each end of a FIFO waits in `open` for the other.
  const [reader, audit] = await Promise.all([
    Deno.open(path, { read: true }),
    FileAuditSink.open(path, { batchMs: 0, ...options }),
  ]);
  let reading: Promise<string> | undefined;
  return {
    audit,
    read: () => reading ??= new Response(reader.readable).text(),
    async [Symbol.asyncDispose]() {
      await audit.close();
      await this.read();
    },
  };
}

/** A router auditing to `audit` (with arguments, so a big argument makes a big record). */
async function echoTools(audit: FileAuditSink) {
  const started: string[] = [];
  const router = new ToolRouter({
    audit,
    auditArguments: true,
    functions: [
      defineTool({
        name: "echo",
        description: "Echoes",
        input: z.object({ id: z.string(), pad: z.string().optional() }),
        run: ({ id }) => (started.push(id), id),
      }),
    ],
  });
  return { toolSet: await router.expose({ functions: ["echo"] }), started };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

const BIG = JSON.stringify({ id: "big", pad: "x".repeat(300_000) });

Deno.test("FileAuditSink at capacity holds the next call back until records leave the queue, and loses no record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Before: a full queue dropped records silently. Now a call waits for room before it runs.
    await using sink = await stalledSink(dir, { maxQueued: 2 });
    const { audit, read } = sink;
    const { toolSet, started } = await echoTools(audit);
    await toolSet.call("echo", BIG); // its record fills the pipe: the writer stalls
    await toolSet.call("echo", '{"id":"a"}');
    await toolSet.call("echo", '{"id":"b"}'); // two records wait: the queue is at capacity
    const held = toolSet.call("echo", '{"id":"c"}');
    await until(() => audit.waiting === 1);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    assertEquals(started, ["big", "a", "b"], "the call at capacity has not run");
    const text = read(); // the disk catches up
    assertEquals((await held).text, "c");
    assertEquals(started, ["big", "a", "b", "c"]);
    // Many calls at once through a queue of two: every call leaves its record.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => toolSet.call("echo", `{"id":"m${i}"}`)),
    );
    assertEquals(many.filter((result) => result.isError).length, 0);
    await audit.close();
    const lines = (await text).trim().split("\n").map((line) => JSON.parse(line));
    assertEquals(lines.length, 44, "one record per call");
    assertEquals(lines.length, started.length);
    assertEquals(lines.filter((line) => line.decision === "allow").length, 44);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink: a call that finds no room within maxWaitMs fails closed with audit_unavailable and still leaves its record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using sink = await stalledSink(dir, { maxQueued: 1, maxWaitMs: 50 });
    const { toolSet, started } = await echoTools(sink.audit);
    await toolSet.call("echo", BIG);
    await toolSet.call("echo", '{"id":"a"}');
    const refused = await toolSet.call("echo", '{"id":"b"}');
    assertEquals(refused.code, "audit_unavailable");
    assertMatch(refused.text, /did not run: the audit trail has no room for its record/);
    assertEquals(started, ["big", "a"], "the call did not run unaudited");
    const text = sink.read();
    await sink.audit.close();
    const lines = (await text).trim().split("\n").map((line) => JSON.parse(line));
    assertEquals(lines.map((line) => [line.arguments.id, line.outcome]), [
      ["big", "ok"],
      ["a", "ok"],
      ["b", "audit_unavailable"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink: calls waiting for room fail closed when the sink closes, and abort with their signal", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using sink = await stalledSink(dir, { maxQueued: 1 });
    const { audit } = sink;
    audit.write(record(0));
    await new Promise((resolve) => setTimeout(resolve, 0));
    audit.write({ ...record(1), arguments: "x".repeat(300_000) });
    audit.write(record(2)); // the writer stalls on the big record; this one waits in the queue
    const controller = new AbortController();
    const aborted = audit.waitForRoom(controller.signal);
    const closed = audit.waitForRoom();
    assertEquals(audit.waiting, 2);
    controller.abort(new Error("caller gave up"));
    await assertRejects(() => aborted!, Error, "caller gave up");
    assertEquals(audit.waiting, 1);
    const refused = assertRejects(() => closed!, Error, "the audit file was closed");
    const text = sink.read();
    await audit.close();
    await refused;
    assertEquals(audit.waiting, 0);
    assertEquals((await text).trim().split("\n").length, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink: a process killed mid-write leaves every earlier line parseable", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const sink = new URL("../../../src/deno/audit/file_audit_sink.ts", import.meta.url).href;
  // Big records written as fast as possible, so the kill lands in the middle of a write.
  const script = `
    import { FileAuditSink } from ${JSON.stringify(sink)};
    const audit = await FileAuditSink.open(${JSON.stringify(path)});
    const pad = "x".repeat(20000);
    for (let i = 0; ; i++) {
      audit.write({ time: "t", tool: "echo", decision: "allow", argumentsDigest: pad, durationMs: i, outcome: "ok" });
      if (i % 50 === 0) { await audit.flush(); if (i === 0) console.log("started"); }
    }
  `;
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel();
    const text = await Deno.readTextFile(path);
    const lines = text.split("\n");
    let tail = lines.pop()!;
    if (tail === "") {
      // The kill fell between writes this time: cut a line by hand, as a crash would.
      tail = '{"time":"t","tool":"ec';
      await Deno.writeTextFile(path, tail, { append: true });
    }
    // Every complete line parses, in order; at most the unterminated tail is cut.
    lines.forEach((line, i) => assertEquals(JSON.parse(line).durationMs, i));
    assert(lines.length > 50, `only ${lines.length} lines were written before the kill`);
    // Opening again closes a cut line, so the next record is a line of its own.
    const again = await FileAuditSink.open(path);
    again.write(record(-1));
    await again.close();
    const after = (await Deno.readTextFile(path)).split("\n");
    assertEquals(after.pop(), "");
    assertEquals(JSON.parse(after.at(-1)!).durationMs, -1);
    assertEquals(after.length, lines.length + 2);
    assertEquals(after.at(-2), tail);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink.open refuses a symbolic link, and serve --audit says so at start (issue 25, finding 11)", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_audit_link_" }));
  try {
    // The attack: the audit path in the workspace is a link to a file the attacker chose.
    const target = `${dir}/elsewhere.txt`;
    await Deno.writeTextFile(target, "someone else's file\n");
    await Deno.symlink(target, `${dir}/audit.jsonl`);
    const error = await assertRejects(() => FileAuditSink.open(`${dir}/audit.jsonl`), TypeError);
    assertStringIncludes(error.message, "is a symbolic link");
    assertEquals(await Deno.readTextFile(target), "someone else's file\n", "nothing appended");

    const { runCli } = await import("../../../src/deno/cli/run_cli.ts");
    const err: string[] = [];
    await Deno.writeTextFile(`${dir}/toolroute.json`, JSON.stringify({ workspace: dir }));
    const code = await runCli(
      [
        "serve",
        "--stdio",
        "--allow-excess",
        "--config",
        `${dir}/toolroute.json`,
        "--audit",
        `${dir}/audit.jsonl`,
      ],
      { out: () => {}, err: (line) => err.push(line) },
    );
    assertEquals(code, 2, err.join("\n"));
    assertStringIncludes(err.join("\n"), "is a symbolic link");
    assertEquals(await Deno.readTextFile(target), "someone else's file\n");

    // A link swapped in after the open is never followed: the sink writes through its descriptor.
    await Deno.remove(`${dir}/audit.jsonl`);
    await using audit = await FileAuditSink.open(`${dir}/audit.jsonl`, { batchMs: 0 });
    await Deno.rename(`${dir}/audit.jsonl`, `${dir}/kept.jsonl`);
    await Deno.symlink(target, `${dir}/audit.jsonl`);
    audit.write(record(1));
    await audit.flush();
    assertEquals(await Deno.readTextFile(target), "someone else's file\n");
    assertStringIncludes(await Deno.readTextFile(`${dir}/kept.jsonl`), '"outcome":"ok"');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
