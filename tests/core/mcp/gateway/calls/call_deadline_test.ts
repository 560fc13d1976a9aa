import { assertEquals } from "@std/assert";
import { callDeadline } from "../../../../../src/core/mcp/gateway/calls/call_deadline.ts";
import { isToolError } from "../../../../../mod.ts";

const never = new AbortController().signal;

Deno.test("callDeadline() uses the call's timeoutMs as a hard deadline", () => {
  const deadline = callDeadline("t", { signal: never, timeoutMs: 500 }, 60_000, undefined);
  assertEquals([deadline.timeoutMs, deadline.hardMs, deadline.extendable], [500, 500, false]);
  deadline.dispose();
});

Deno.test("callDeadline() lets progress extend requestTimeoutMs up to the hard maximum", () => {
  const byDefault = callDeadline("t", { signal: never }, 1000, undefined);
  assertEquals([byDefault.timeoutMs, byDefault.hardMs, byDefault.extendable], [1000, 4000, true]);
  byDefault.dispose();
  const set = callDeadline("t", { signal: never }, 1000, 1500);
  assertEquals(set.hardMs, 1500);
  set.dispose();
});

Deno.test("callDeadline() aborts with a timeout ToolError, and with the caller's reason", async () => {
  const deadline = callDeadline("slow", { signal: never, timeoutMs: 10 }, 60_000, undefined);
  await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
  assertEquals(isToolError(deadline.signal.reason), true);
  assertEquals(deadline.signal.reason.code, "timeout");
  deadline.dispose();
  const caller = new AbortController();
  const followed = callDeadline("t", { signal: caller.signal }, 60_000, undefined);
  caller.abort("stop");
  assertEquals(followed.signal.reason, "stop");
  followed.dispose();
});
