import { assertEquals } from "@std/assert";
import { formatCallLog } from "../../../src/deno/cli/call_log.ts";

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
