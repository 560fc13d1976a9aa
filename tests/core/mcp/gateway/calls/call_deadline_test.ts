import { assertEquals, assertStrictEquals } from "@std/assert";
import { callDeadline } from "../../../../../src/core/mcp/gateway/calls/call_deadline.ts";
import { isToolError } from "../../../../../mod.ts";

const never = new AbortController().signal;

Deno.test("callDeadline() keeps a call's own timeoutMs hard, on the router's timer and signal", () => {
  const caller = new AbortController();
  const deadline = callDeadline("t", { signal: caller.signal, timeoutMs: 500 }, {
    requestTimeoutMs: 60_000,
  });
  assertEquals([deadline.timeoutMs, deadline.hardMs, deadline.extendable], [500, 500, false]);
  // No second timer and no second signal: the router's aborts this one at the deadline.
  assertStrictEquals(deadline.signal, caller.signal);
  deadline.dispose();
  assertEquals(caller.signal.aborted, false);
});

Deno.test("callDeadline() lets progress extend requestTimeoutMs up to the hard maximum", () => {
  const byDefault = callDeadline("t", { signal: never }, { requestTimeoutMs: 1000 });
  assertEquals([byDefault.timeoutMs, byDefault.hardMs, byDefault.extendable], [1000, 4000, true]);
  byDefault.dispose();
  const set = callDeadline("t", { signal: never }, {
    requestTimeoutMs: 1000,
    maxTotalTimeoutMs: 1500,
  });
  assertEquals(set.hardMs, 1500);
  set.dispose();
});

Deno.test("callDeadline() aborts a call without its own deadline at the gateway's, with a timeout ToolError", async () => {
  const deadline = callDeadline("slow", { signal: never }, {
    requestTimeoutMs: 5,
    maxTotalTimeoutMs: 10,
  });
  await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
  assertEquals(isToolError(deadline.signal.reason), true);
  assertEquals(deadline.signal.reason.code, "timeout");
  assertEquals(deadline.signal.reason.message, 'Tool "slow" did not finish within 10 ms');
  deadline.dispose();
});

Deno.test("callDeadline() follows the caller's abort, with the caller's reason", () => {
  const caller = new AbortController();
  const followed = callDeadline("t", { signal: caller.signal }, { requestTimeoutMs: 60_000 });
  caller.abort("stop");
  assertEquals(followed.signal.reason, "stop");
  followed.dispose();
});

Deno.test("callDeadline() is aborted at once when the caller aborted before it, and lets go of the caller's signal when disposed", () => {
  const early = new AbortController();
  early.abort("gone");
  const aborted = callDeadline("t", { signal: early.signal }, { requestTimeoutMs: 60_000 });
  assertEquals([aborted.signal.aborted, aborted.signal.reason], [true, "gone"]);
  aborted.dispose();
  // Disposed, the deadline no longer listens: a later abort of the caller leaves it as it was.
  const caller = new AbortController();
  const ended = callDeadline("t", { signal: caller.signal }, { requestTimeoutMs: 60_000 });
  ended.dispose();
  caller.abort("late");
  assertEquals(ended.signal.aborted, false);
});
