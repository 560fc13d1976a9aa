import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl } from "./_file_url.ts";

const MAIN = fromFileUrl(new URL("./_serve_stdio_main.ts", import.meta.url));

/** `_serve_stdio_main.ts` as a child, spoken to in JSON lines. */
interface StdioChild extends AsyncDisposable {
  send(message: unknown): Promise<void>;
  /** The next JSON-RPC message on stdout. */
  next(): Promise<Record<string, unknown>>;
  /** Closes stdin, waits for the exit; returns the code, stdout's rest and stderr. */
  end(closeStdin?: boolean): Promise<{ code: number; rest: string; stderr: string }>;
  /** The child's workspace. */
  readonly workspace: string;
}

async function startChild(args: string[], env: Record<string, string> = {}): Promise<StdioChild> {
  const workspace = await Deno.makeTempDir({ prefix: "toolroute_stdio_" });
  await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\n");
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
    env,
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffer = "";
  let ended: Promise<{ code: number; rest: string; stderr: string }> | undefined;
  const end = (closeStdin = true) =>
    ended ??= (async () => {
      if (closeStdin) await writer.close().catch(() => {});
      let rest = buffer;
      for (;;) {
        const { done, value } = await lines.read();
        if (done) break;
        rest += value;
      }
      const status = await child.status;
      await Deno.remove(workspace, { recursive: true });
      return { code: status.code, rest, stderr: await stderr };
    })();
  return {
    send: (message) => writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n")),
    async next() {
      while (!buffer.includes("\n")) {
        const { done, value } = await lines.read();
        if (done) throw new Error(`stdout ended; stderr: ${await stderr}`);
        buffer += value;
      }
      const index = buffer.indexOf("\n");
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      return JSON.parse(line);
    },
    end,
    workspace,
    [Symbol.asyncDispose]: async () => void await end(),
  };
}

async function initialize(child: StdioChild): Promise<void> {
  await child.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  });
  const answer = await child.next();
  assertEquals(answer.id, 0);
  await child.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

Deno.test("serveStdio() answers JSON lines on stdout and returns when stdin ends", async () => {
  await using child = await startChild([]);
  await initialize(child);
  await child.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const list = await child.next() as { id: number; result: { tools: { name: string }[] } };
  assertEquals(list.id, 1);
  assertEquals(list.result.tools.map((tool) => tool.name), ["read_file"]);
  await child.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "read_file", arguments: { path: "hello.txt" } },
  });
  const call = await child.next() as { result: { content: { text: string }[] } };
  assertEquals(JSON.parse(call.result.content[0].text).content, "hello\n");
  const { code, rest, stderr } = await child.end();
  assertEquals(code, 0);
  assertEquals(rest, "", "nothing but answers on stdout");
  const lines = stderr.trim().split("\n");
  assertEquals(lines[0], "toolroute: serving over stdio");
  assertEquals(lines.at(-1), "serveStdio returned");
  assert(!stderr.includes("unexpected out"));
});

Deno.test("serveStdio() serves as the given user and says so", async () => {
  await using child = await startChild(["alice"]);
  await initialize(child);
  await child.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "read_file", arguments: { path: "hello.txt" } },
  });
  await child.next();
  const { code, stderr } = await child.end();
  assertEquals(code, 0);
  assertStringIncludes(stderr, 'toolroute: serving over stdio as user "alice"\n');
  assertStringIncludes(stderr, "event read_file user=alice\n");
});

Deno.test("serveStdio() returns when the stop signal aborts, with stdin still open", async () => {
  await using child = await startChild(["", "300"]);
  await initialize(child);
  const started = Date.now();
  const { code, stderr } = await child.end(false);
  assertEquals(code, 0);
  assertStringIncludes(stderr, "serveStdio returned");
  assert(Date.now() - started < 5000);
});

Deno.test("serveStdio() notifies its client of tool-list changes for its user or for everyone", async () => {
  // The child reports the changes once the file appears: after the client initialized, never on
  // a clock that a loaded machine may outrun (the notices then went before the session existed).
  await using child = await startChild(["alice"], { NOTIFY_WHEN: "notify-now" });
  await initialize(child);
  await Deno.writeTextFile(`${child.workspace}/notify-now`, "");
  const notice = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  assertEquals(await child.next(), notice, "for alice");
  assertEquals(await child.next(), notice, "for everyone");
  await child.send({ jsonrpc: "2.0", id: 9, method: "ping" });
  assertEquals((await child.next()).id, 9, "no notice for another user");
  assertEquals((await child.end()).code, 0);
});

Deno.test("serveStdio() serves a 2026-07-28 client that never initializes", async () => {
  await using child = await startChild(["alice"]);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "modern", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  await child.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } });
  const discovered = await child.next() as { result: { supportedVersions: string[] } };
  assert(discovered.result.supportedVersions.includes("2026-07-28"), JSON.stringify(discovered));
  await child.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "read_file", arguments: { path: "hello.txt" }, _meta: meta },
  });
  const call = await child.next() as { id: number; result: { content: { text: string }[] } };
  assertEquals(call.id, 2);
  assertEquals(JSON.parse(call.result.content[0].text).content, "hello\n");
  const { code, stderr } = await child.end();
  assertEquals(code, 0);
  // The call ran, for the connection's user, without any initialize.
  assertStringIncludes(stderr, "event read_file user=alice\n");
});
