// A hostile upstream server with endless tool names (a tools list that changes all the time),
// each of whose calls reports progress: the per-connection sets stay bounded.
import { assert, assertEquals } from "@std/assert";
import { ProgressTokens } from "../../../../../src/core/mcp/gateway/calls/progress_tokens.ts";

Deno.test("ProgressTokens remembers at most 4096 tool names per set, however many names a server brings", () => {
  const tokens = new ProgressTokens(false);
  let probes = 0;
  let reported = 0;
  for (let i = 0; i < 10_000; i++) {
    const listener = tokens.listener(`tool_${i}`, { onProgress: undefined, extendable: true });
    if (listener === undefined) continue;
    probes++;
    listener({ progress: 1 });
    reported++;
  }
  assert(reported > 0, "the attack ran");
  assertEquals(probes, 4096, "probes past the bound");
  assertEquals(tokens.reports("tool_4095"), true);
  assertEquals(tokens.reports("tool_9999"), false);
  // With a listener of the caller's, a call always carries a token; it no longer teaches the set.
  for (let i = 10_000; i < 12_000; i++) {
    tokens.listener(`tool_${i}`, { onProgress: () => {}, extendable: true })?.({ progress: 1 });
  }
  assertEquals(tokens.reports("tool_11999"), false);
  // A known reporter still gets its token.
  assert(tokens.listener("tool_1", { onProgress: undefined, extendable: true }) !== undefined);
});
