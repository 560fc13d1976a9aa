// `serve --stdio` flooded: a client writes many calls and a huge line in one go and closes stdin
// at once. Every call is answered, none twice, and no deferred call-log line is lost at the exit.
import { assert, assertEquals } from "@std/assert";
import { CLI, exactFlags, makeFixture } from "./_serve_process.ts";

Deno.test("serve --stdio answers a flood of calls sent with stdin closed right after, and writes every call's log line before it exits", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const flags = await exactFlags(["--config", fixture.config]);
  const calls = 150;
  const lines = [
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "flood", version: "1" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...Array.from({ length: calls }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: {
        name: "read_file",
        arguments: { path: i % 10 === 0 ? "../toolroute.json" : "hello.txt" },
      },
    })),
  ].map((message) => JSON.stringify(message));
  // A huge line in the middle (no newline for 8 MiB): bounded, and the calls after it answered.
  const huge = `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"x":"${
    "y".repeat(8 << 20)
  }"}}`;
  const input = [...lines.slice(0, 50), huge, ...lines.slice(50)].join("\n") + "\n";
  for (const closeAtOnce of [false, true]) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, CLI, "serve", "--stdio", "--config", fixture.config],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    const stderrText = new Response(child.stderr).text();
    // Read the answers; with closeAtOnce, stdin ends right after the flood (the client's shutdown:
    // calls in flight are given up, but each one's log line is still written).
    if (closeAtOnce) await writer.close();
    let stdout = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      stdout += decoder.decode(chunk, { stream: true });
      if (!closeAtOnce && stdout.split("\n").filter((l) => /"id":\d+/.test(l)).length > calls) {
        await writer.close();
      }
    }
    const status = await child.status;
    const stderr = await stderrText;
    const answers = stdout.split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line)
    );
    const ids = answers.map((answer) => answer.id).filter((id) => typeof id === "number" && id > 0);
    const logged = stderr.split("\n").filter((line) => /^toolroute: call read_file /.test(line));
    const seen = `closeAtOnce=${closeAtOnce}: ${ids.length} answered, ${logged.length} logged`;
    assertEquals(status.code, 0, stderr.slice(-500));
    // The attack ran: calls were answered while the flood (and, with closeAtOnce, the close)
    // went on, so there are log lines whose loss would show.
    assert(ids.length > 0, `nothing was answered: ${seen}`);
    assertEquals(new Set(ids).size, ids.length, "no call answered twice");
    assert(stdout.length < 1 << 20, "the huge line was not echoed back whole");
    assert(
      logged.length >= ids.length,
      `an answered call's log line was lost at the exit: ${seen}`,
    );
    if (closeAtOnce) continue;
    assertEquals(ids.length, calls, `${ids.length} of ${calls} answered; ${stderr.slice(-300)}`);
    const errors = answers.filter((answer) => answer.result?.isError === true).length;
    assertEquals(errors, calls / 10, "the calls outside the workspace were refused");
    assertEquals(logged.length, calls, `${logged.length} of ${calls} call lines logged`);
  }
});
