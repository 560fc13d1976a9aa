import { assertEquals } from "@std/assert";
import { formatCallLog, formatGatewayLog } from "../../../src/deno/cli/call_log.ts";

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
