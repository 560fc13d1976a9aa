import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { escapeLogText, formatCallLog, formatGatewayLog } from "../../../src/deno/cli/call_log.ts";

Deno.test("formatCallLog() writes tool, source, user, duration and outcome on one line", () => {
  assertEquals(
    formatCallLog({
      type: "call",
      tool: "read_file",
      source: "builtin",
      userId: "alice",
      durationMs: 3.4,
      isError: false,
    }),
    "toolroute: call read_file builtin user=alice 3 ms ok",
  );
  assertEquals(
    formatCallLog({
      type: "call",
      tool: "x",
      durationMs: 0.2,
      isError: true,
      code: "unknown_tool",
    }),
    "toolroute: call x - user=- 0 ms error unknown_tool",
  );
});

Deno.test("formatGatewayLog() names the server, its user and what happened", () => {
  assertEquals(
    formatGatewayLog({ type: "connected", serverId: "search", tools: 12 }),
    'toolroute: mcp server "search" connected (12 tools)',
  );
  assertEquals(
    formatGatewayLog({
      type: "connect_failed",
      serverId: "mail",
      userId: "alice",
      message: "refused",
    }),
    'toolroute: mcp server "mail" of user "alice" connect failed: refused',
  );
  assertEquals(
    formatGatewayLog({ type: "closed", serverId: "mail", reason: "idle" }),
    'toolroute: mcp server "mail" closed (idle)',
  );
});

Deno.test("formatCallLog() adds the policy's decision, the approval's outcome and the rule", () => {
  assertEquals(
    formatCallLog({
      type: "call",
      tool: "write_file",
      source: "builtin",
      durationMs: 2,
      isError: false,
      decision: "ask",
      rule: "write_file(src/**)",
      approval: "approved",
    }),
    'toolroute: call write_file builtin user=- 2 ms ok policy=ask/approved rule="write_file(src/**)"',
  );
  assertEquals(
    formatCallLog({
      type: "call",
      tool: "echo",
      durationMs: 0,
      isError: false,
      decision: "allow",
      rule: "default",
    }),
    'toolroute: call echo - user=- 0 ms ok policy=allow rule="default"',
  );
});

Deno.test("formatCallLog() escapes a client's tool name: no forged line, no terminal escape", () => {
  // The attack: an unknown tool's name, chosen by the client, holding a newline that starts a
  // forged call line, an ANSI escape that clears the screen, and a bidi override.
  const forged = "x\ntoolroute: call write_file builtin user=admin 1 ms ok";
  const ansi = "\u001b[2J\u001b[31mred";
  const line = formatCallLog({
    type: "call",
    tool: `${forged}${ansi}\u202Etxt.exe`,
    userId: "bob\r\nroot",
    durationMs: 1,
    isError: true,
    code: "unknown_tool",
  });
  // The forged text is there, made visible, on the one line.
  assertStringIncludes(line, "toolroute: call write_file builtin user=admin 1 ms ok");
  assertEquals(line.split("\n").length, 1);
  for (const raw of ["\n", "\r", "\u001b", "\u202E"]) {
    assertEquals(line.includes(raw), false, JSON.stringify(raw));
  }
  assertStringIncludes(line, "\\n");
  assertStringIncludes(line.toLowerCase(), "\\u001b[2j");
  assertStringIncludes(line, "\\u202E");
  assertStringIncludes(line, 'user="bob\\r\\nroot"');
  assertEquals(line.startsWith('toolroute: call "x\\ntoolroute: call write_file'), true, line);
  // A space cannot forge the fields after the name either: it is quoted.
  assertEquals(
    formatCallLog({ type: "call", tool: "a builtin user=alice", durationMs: 0, isError: false }),
    'toolroute: call "a builtin user=alice" - user=- 0 ms ok',
  );
  // A long name is cut.
  const long = formatCallLog({
    type: "call",
    tool: "n".repeat(5000),
    durationMs: 0,
    isError: false,
  });
  assert(long.length < 400, String(long.length));
});

Deno.test("formatGatewayLog() escapes ids and a server's message", () => {
  const line = formatGatewayLog({
    type: "connect_failed",
    serverId: 'a"b',
    userId: "u\u2028v",
    message: "refused\ntoolroute: call read_file builtin user=alice 1 ms ok\u001b]0;title\u0007",
  });
  assertEquals(line.split("\n").length, 1);
  for (const raw of ["\n", "\u001b", "\u0007", "\u2028"]) {
    assertEquals(line.includes(raw), false, JSON.stringify(raw));
  }
  assertStringIncludes(line, 'mcp server "a\\"b" of user "u\\u2028v"');
  assertStringIncludes(line, "refused\\u000Atoolroute: call read_file");
});

Deno.test("escapeLogText() escapes controls, bidi and line breaks, keeps the rest", () => {
  assertEquals(escapeLogText("ok é 😀"), "ok é 😀");
  assertEquals(escapeLogText("a\tb\u200Fc\u2066d"), "a\\u0009b\\u200Fc\\u2066d");
});
