import { assert, assertEquals } from "@std/assert";
import { Backoff } from "../../../../../src/core/mcp/gateway/connection/backoff.ts";

Deno.test("Backoff waits initial × factor^n, capped, and resets on success", () => {
  const backoff = new Backoff({ initialDelayMs: 100, maxDelayMs: 300, factor: 2 });
  assertEquals(backoff.waitMs, 0);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    backoff.failed();
    waits.push(Math.round(backoff.waitMs / 50) * 50);
  }
  assertEquals(waits, [100, 200, 300, 300]);
  assertEquals(backoff.attempts, 4);
  backoff.succeeded();
  assertEquals([backoff.attempts, backoff.waitMs], [0, 0]);
  backoff.retryIn(1000);
  assert(backoff.waitMs > 900);
  assertEquals(backoff.attempts, 0);
});
