/**
 * OPEN HOLE, kept out of the suite (not named `*_test.ts`): run with
 * `deno test --no-prompt -A tests/_attacks/stdio_stalled_stdout_freezes_timers_attack.ts`.
 *
 * `serve --stdio` writes answers of at most 64 KiB with `Deno.stdout.writeSync`
 * (`src/deno/mcp/_line_writer.ts`). A client that stops reading stdout while it keeps sending
 * fills the pipe; the next `writeSync` then blocks the whole process: no timer runs, so the
 * stop signal, command timeouts (`commandTimeoutMs`), sandbox-session grace kills and idle
 * closes all wait until the client reads again (forever if it never does). Here a stop timer
 * set for 800 ms runs only when the client resumes reading at ~2.5 s.
 *
 * @module
 */
import { assert } from "@std/assert";
import { fromFileUrl } from "../deno/cli/_file_url.ts";

const MAIN = fromFileUrl(new URL("../deno/cli/_serve_stdio_main.ts", import.meta.url));
const enc = new TextEncoder();

Deno.test("a full stdout pipe does not hold up the server's timers (the stop signal fires on time)", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "toolroute_stdio_stall_" });
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      "--allow-env",
      MAIN,
      workspace,
      "",
      "800",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let returnedAt: number | undefined;
  const stderr = (async () => {
    let text = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      if (returnedAt === undefined && text.includes("serveStdio returned")) {
        returnedAt = performance.now() - started;
      }
    }
  })();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(enc.encode(JSON.stringify(message) + "\n")).catch(() => {});
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
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  // About 1 MB of answers while nothing reads stdout.
  let sent = 0;
  const sending = (async () => {
    for (let id = 1; id <= 3000; id++, sent++) {
      await send({ jsonrpc: "2.0", id, method: "tools/list" });
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const readAt = performance.now() - started;
  await child.stdout.pipeTo(new WritableStream());
  await writer.close().catch(() => {});
  await sending;
  await child.status;
  await stderr;
  await Deno.remove(workspace, { recursive: true });
  assert(sent > 0);
  assert(
    returnedAt !== undefined && returnedAt < readAt,
    `stop at 800 ms ran at ${returnedAt} ms, reading resumed at ${readAt} ms`,
  );
});
