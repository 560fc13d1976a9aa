import { assert, assertEquals } from "@std/assert";
import { ConnectionFailures } from "../../../../../src/core/mcp/gateway/connection/connection_failures.ts";
import { Redactor } from "../../../../../src/core/mcp/gateway/calls/redactor.ts";

Deno.test("ConnectionFailures waits initial × factor^n, capped; a lost client counts no attempt", () => {
  const settings = { initialDelayMs: 100, maxDelayMs: 300, factor: 2, attempts: 4 };
  const failures = new ConnectionFailures(settings, new Redactor({ url: "http://x" }));
  assertEquals(failures.waitMs, 0);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    failures.connectFailed(new Error("refused"));
    waits.push(Math.round(failures.waitMs / 50) * 50);
  }
  assertEquals(waits, [100, 200, 300, 300]);
  assertEquals(failures.attempts, 4);
  failures.lost(undefined);
  assertEquals(failures.waitMs, 0);
  failures.lost(undefined, 1000);
  assert(failures.waitMs > 900);
  assertEquals(failures.attempts, 4);
  // A success drops the record: the connection's next one starts from nothing.
  const fresh = new ConnectionFailures(settings, new Redactor({ url: "http://x" }));
  assertEquals([fresh.attempts, fresh.waitMs], [0, 0]);
});
