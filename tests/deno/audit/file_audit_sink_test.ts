import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { FileAuditSink } from "../../../src/deno/audit/file_audit_sink.ts";
import type { AuditRecord } from "../../../src/core/audit_sink.ts";

function record(i: number): AuditRecord {
  return {
    time: new Date().toISOString(),
    tool: "echo",
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

Deno.test("FileAuditSink drops records past its queue limit, counts them and says so once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const errors: string[] = [];
    const sink = await FileAuditSink.open(`${dir}/a.jsonl`, {
      maxQueued: 5,
      onError: (error) => errors.push(error.message),
    });
    for (let i = 0; i < 20; i++) sink.write(record(i));
    await sink.close();
    assert(sink.dropped > 0);
    assertEquals(errors.length, 1);
    const lines = (await Deno.readTextFile(`${dir}/a.jsonl`)).trim().split("\n");
    assertEquals(lines.length, 20 - sink.dropped);
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
      audit.write({ time: "t", tool: "echo", argumentsDigest: pad, durationMs: i, outcome: "ok" });
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
