import { assertEquals } from "@std/assert";
import { circuitBreakerHook } from "../../../src/core/hooks/mod.ts";
import type { HookAfterCall, HookCall } from "../../../src/core/hooks/tool_hook.ts";
import type { ToolCallResult } from "../../../src/core/tool_call_types.ts";

const failed = {
  isError: true,
  code: "upstream_unavailable",
  text: "the server is down",
  content: [{ type: "text", text: "the server is down" }],
} as unknown as ToolCallResult;

function callOf(userId: string): HookAfterCall {
  return {
    tool: "search_query",
    source: "global_mcp",
    args: {},
    userId,
    origin: "search/query",
    server: "search",
    readOnly: true,
    signal: new AbortController().signal,
    rerun: () => Promise.resolve(failed),
  };
}

const isOpen = (hook: ReturnType<typeof circuitBreakerHook>, call: HookCall) =>
  hook.before?.(call) !== undefined;

Deno.test("circuit breaker keeps at most 10,000 failing circuits: users who fail once and never return are forgotten, oldest first", () => {
  const hook = circuitBreakerHook({ failures: 1, now: () => 0 });
  hook.after?.(callOf("first"), failed);
  assertEquals(isOpen(hook, callOf("first")), true, "one failure opens the first user's circuit");
  // A day of an upstream outage: every user meets one failure and never comes back.
  for (let user = 0; user < 10_000; user++) hook.after?.(callOf(`once-${user}`), failed);
  assertEquals(isOpen(hook, callOf("first")), false, "the oldest circuit was forgotten");
  assertEquals(isOpen(hook, callOf("once-9999")), true, "the newest is kept");
  assertEquals(isOpen(hook, callOf("once-1")), true, "and the others within the bound");
});

Deno.test("circuit breaker counts a circuit's newest failure for its place, so a user who keeps failing is not the first forgotten", () => {
  const hook = circuitBreakerHook({ failures: 1, now: () => 0 });
  hook.after?.(callOf("steady"), failed);
  for (let user = 0; user < 9_999; user++) hook.after?.(callOf(`once-${user}`), failed);
  hook.after?.(callOf("steady"), failed);
  hook.after?.(callOf("late"), failed);
  assertEquals(isOpen(hook, callOf("steady")), true, "its latest failure moved it back");
  assertEquals(isOpen(hook, callOf("once-0")), false, "the oldest single failure went instead");
});
