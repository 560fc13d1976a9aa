// Attacks of a stdio client on `serve --stdio`: a line far over the limit, UTF-8 split across
// writes at every byte, and a client that stops reading stdout while it keeps sending.
import { assert, assertEquals } from "@std/assert";
import { fromFileUrl } from "../cli/_file_url.ts";

const MAIN = fromFileUrl(new URL("../cli/_serve_stdio_main.ts", import.meta.url));
const enc = new TextEncoder();

async function start(args: string[] = []) {
  const workspace = await Deno.makeTempDir({ prefix: "toolroute_stdio_attack_" });
  await Deno.writeTextFile(`${workspace}/héllo €𝄞.txt`, "unicode ✓\n");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      "--allow-env",
      MAIN,
      workspace,
      ...args,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderrLines: { at: number; line: string }[] = [];
  const started = performance.now();
  const stderrDone = (async () => {
    let rest = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop()!;
      for (const line of parts) stderrLines.push({ at: performance.now() - started, line });
    }
  })();
  let buffer = "";
  const next = async (): Promise<Record<string, unknown>> => {
    while (!buffer.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error("stdout ended");
      buffer += value;
    }
    const i = buffer.indexOf("\n");
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    return JSON.parse(line);
  };
  const send = (message: unknown) => writer.write(enc.encode(JSON.stringify(message) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  assertEquals((await next()).id, 0);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    writer,
    send,
    next,
    stderrLines,
    started,
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {});
      for (;;) if ((await reader.read()).done) break;
      await child.status;
      await stderrDone;
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

Deno.test("a line of 40 MB without a newline, then a normal request: the line is dropped with bounded memory, the request answered", async () => {
  await using s = await start();
  const chunk = new Uint8Array(1 << 20).fill(0x61);
  let sent = 0;
  await s.writer.write(enc.encode('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"'));
  for (let i = 0; i < 40; i++) {
    await s.writer.write(chunk);
    sent += chunk.length;
  }
  await s.writer.write(enc.encode('"}}\n'));
  await s.send({ jsonrpc: "2.0", id: 8, method: "tools/list" });
  const answers: Record<string, unknown>[] = [];
  for (;;) {
    const message = await s.next();
    answers.push(message);
    if (message.id === 8) break;
  }
  assert(sent >= 40 << 20);
  assert(
    !answers.some((m) => m.id === 7 && m.result !== undefined),
    "the oversized request was not run",
  );
  assertEquals((answers.at(-1)!.result as { tools: unknown[] }).tools.length, 1);
});

Deno.test("a request whose UTF-8 is split across writes at every byte is decoded whole", async () => {
  await using s = await start();
  const bytes = enc.encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "read_file", arguments: { path: "héllo €𝄞.txt" } },
    }) + "\n",
  );
  let writes = 0;
  for (const byte of bytes) {
    await s.writer.write(new Uint8Array([byte]));
    writes++;
  }
  const answer = await s.next() as { id: number; result: { content: { text: string }[] } };
  assert(writes > 50);
  assertEquals(answer.id, 3);
  assertEquals(JSON.parse(answer.result.content[0].text).content, "unicode ✓\n");
});

Deno.test("a client that stops reading stdout while it keeps sending loses no answer once it reads again", async () => {
  await using s = await start();
  // About 1 MB of answers, far over a pipe's 64 KiB, sent while nothing reads stdout.
  const count = 3000;
  const sending = (async () => {
    for (let id = 100; id < 100 + count; id++) {
      await s.send({ jsonrpc: "2.0", id, method: "tools/list" });
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const ids: number[] = [];
  let answerChars = 0;
  while (ids.length < count) {
    const answer = await s.next();
    answerChars += JSON.stringify(answer).length;
    ids.push(answer.id as number);
  }
  await sending;
  // The attack ran: answers far past a pipe's 64 KiB waited unread for over a second.
  assert(
    answerChars > 4 * 64 * 1024,
    `only ${answerChars} characters of answers: the pipe never filled`,
  );
  assertEquals(ids, Array.from({ length: count }, (_, i) => 100 + i));
});
