import { assert, assertEquals } from "@std/assert";
import { ProgressTokens } from "../../../../../src/core/mcp/gateway/calls/progress_tokens.ts";
import { ignoreProgress } from "../../../../../src/core/mcp/mcp_call.ts";

Deno.test("ProgressTokens gives a token to a listened call, and to the first extendable call of each tool", () => {
  const tokens = new ProgressTokens(false);
  const seen: number[] = [];
  const listened = tokens.listener("echo", {
    onProgress: (p) => seen.push(p.progress),
    extendable: false,
  });
  assert(listened !== undefined, "a call whose progress someone listens to carries a token");
  listened!({ progress: 1 });
  assertEquals(seen, [1]);
  // The probe: the first unlistened call of a tool carries a token, the next ones do not.
  assert(tokens.listener("add", { onProgress: undefined, extendable: true }) !== undefined);
  assertEquals(tokens.listener("add", { onProgress: undefined, extendable: true }), undefined);
  assertEquals(tokens.listener("add", { onProgress: undefined, extendable: true }), undefined);
  // A call with its own (hard) deadline gains nothing from progress: no probe is spent on it.
  assertEquals(tokens.listener("sleep", { onProgress: undefined, extendable: false }), undefined);
  assert(tokens.listener("sleep", { onProgress: undefined, extendable: true }) !== undefined);
});

Deno.test("ProgressTokens gives every later call of a tool that reported progress a token", () => {
  const tokens = new ProgressTokens(false);
  const probe = tokens.listener("work", { onProgress: undefined, extendable: true })!;
  assertEquals(tokens.reports("work"), false);
  probe({ progress: 1, total: 3 });
  assertEquals(tokens.reports("work"), true);
  // Learned: the plain no-op listener, no wrapper, on every unlistened extendable call.
  assertEquals(
    tokens.listener("work", { onProgress: undefined, extendable: true }),
    ignoreProgress,
  );
  assertEquals(
    tokens.listener("work", { onProgress: undefined, extendable: true }),
    ignoreProgress,
  );
  const own = () => {};
  assertEquals(tokens.listener("work", { onProgress: own, extendable: true }), own);
  // A tool learned through a listened call is learned for unlistened calls too.
  const other = new ProgressTokens(false);
  other.listener("relay", { onProgress: own, extendable: true })!({ progress: 1 });
  assertEquals(
    other.listener("relay", { onProgress: undefined, extendable: true }),
    ignoreProgress,
  );
});

Deno.test("ProgressTokens with always gives every extendable call a token, none to a call with its own deadline", () => {
  const tokens = new ProgressTokens(true);
  for (let i = 0; i < 3; i++) {
    assertEquals(
      tokens.listener("echo", { onProgress: undefined, extendable: true }),
      ignoreProgress,
    );
  }
  assertEquals(tokens.listener("echo", { onProgress: undefined, extendable: false }), undefined);
  const own = () => {};
  assertEquals(tokens.listener("echo", { onProgress: own, extendable: false }), own);
});

Deno.test("ProgressTokens remembers a bounded number of probed tools", () => {
  const tokens = new ProgressTokens(false);
  for (let i = 0; i < 4096; i++) {
    assert(tokens.listener(`t${i}`, { onProgress: undefined, extendable: true }) !== undefined);
  }
  // Past the bound, unknown names get no probe (the calls keep the plain deadline).
  assertEquals(tokens.listener("one_more", { onProgress: undefined, extendable: true }), undefined);
  assert(tokens.listener("listened", { onProgress: () => {}, extendable: true }) !== undefined);
});
