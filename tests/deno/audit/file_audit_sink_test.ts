import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import { FileAuditSink } from "../../../src/deno/audit/file_audit_sink.ts";
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

/** A router with `hold` (waits until released) and `echo`, auditing to `audit`. */
function heldRouter(audit: FileAuditSink) {
  const started: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const router = new ToolRouter({
    audit,
    functions: [
      defineTool({
        name: "hold",
        description: "Waits until released",
        input: z.object({ id: z.string() }),
        run: async ({ id }) => {
          started.push(id);
          await released;
          return id;
        },
      }),
      defineTool({
        name: "echo",
        description: "Echoes",
        input: z.object({ id: z.string() }),
        run: ({ id }) => (started.push(id), id),
      }),
    ],
  });
  return { router, started, release };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

Deno.test("FileAuditSink at capacity holds the next call back until a record leaves the queue, and loses no record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.jsonl`;
    // Before: a full queue dropped records silently. Now room is taken per call, before it runs.
    const audit = await FileAuditSink.open(path, { maxQueued: 2, batchMs: 60_000 });
    const { router, started, release } = heldRouter(audit);
    const toolSet = await router.expose({ functions: ["hold", "echo"] });
    const a = toolSet.call("hold", '{"id":"a"}');
    const b = toolSet.call("hold", '{"id":"b"}');
    await until(() => started.length === 2);
    const c = toolSet.call("echo", '{"id":"c"}');
    await until(() => audit.waiting === 1);
    // The queue is at capacity (two calls under way hold its room): the third call is held back.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    assertEquals(started, ["a", "b"]);
    assertEquals(audit.waiting, 1);
    release();
    assertEquals((await Promise.all([a, b, c])).map((result) => result.text), ["a", "b", "c"]);
    assertEquals(started, ["a", "b", "c"], "the held call ran after the others made room");
    // Many calls at once through a queue of two: every call leaves its record.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => toolSet.call("echo", `{"id":"m${i}"}`)),
    );
    assertEquals(many.filter((result) => result.isError).length, 0);
    await audit.close();
    const lines = (await Deno.readTextFile(path)).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assertEquals(lines.length, 43, "one record per call");
    assertEquals(lines.filter((line) => line.decision === "allow").length, 43);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink: a call that finds no room within maxWaitMs fails closed with audit_unavailable and still leaves its record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.jsonl`;
    const audit = await FileAuditSink.open(path, { maxQueued: 1, maxWaitMs: 50 });
    const { router, started, release } = heldRouter(audit);
    const toolSet = await router.expose({ functions: ["hold", "echo"] });
    const a = toolSet.call("hold", '{"id":"a"}');
    await until(() => started.length === 1);
    const b = await toolSet.call("echo", '{"id":"b"}');
    assertEquals(b.code, "audit_unavailable");
    assertMatch(b.text, /did not run: the audit trail has no room for its record/);
    assertEquals(started, ["a"], "the call did not run unaudited");
    release();
    assertEquals((await a).text, "a");
    await audit.close();
    const lines = (await Deno.readTextFile(path)).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assertEquals(lines.map((line) => [line.outcome, line.decision]).sort(), [
      ["audit_unavailable", "allow"],
      ["ok", "allow"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileAuditSink: calls waiting for room fail closed when the sink closes, and abort with their signal", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const audit = await FileAuditSink.open(`${dir}/a.jsonl`, { maxQueued: 1 });
    audit.reserve();
    const controller = new AbortController();
    const aborted = audit.reserve(controller.signal);
    const closed = audit.reserve();
    assertEquals(audit.waiting, 2);
    controller.abort(new Error("caller gave up"));
    await assertRejects(() => aborted!, Error, "caller gave up");
    await audit.close();
    await assertRejects(() => closed!, Error, "the audit file was closed");
    assertEquals(audit.waiting, 0);
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
