import { assert, assertEquals } from "@std/assert";
import { DeadlineTimer } from "../../src/core/deadline_timer.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits until `done()` holds. These tests assert order and lower bounds only: on a loaded machine a
// timer fires late, never early, so an upper bound on when it fires would be a flaky test.
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 10_000) throw new Error("the expected deadlines did not expire within 10 s");
    await sleep(5);
  }
}

Deno.test("DeadlineTimer expires each deadline once when it passes, and not a deleted one", async () => {
  const timer = new DeadlineTimer();
  const expired: string[] = [];
  const started = performance.now();
  timer.add(60, () => expired.push(`late after ${performance.now() - started}`));
  timer.add(20, () => expired.push("early"));
  const deleted = timer.add(10, () => expired.push("deleted"));
  timer.delete(deleted);
  await until(() => expired.length >= 2);
  await sleep(20);
  // Deadlines that came due while the event loop was held expire in one sweep, in any order.
  assertEquals(expired.length, 2, "each deadline expired once, the deleted one never");
  assert(expired.includes("early"), expired.join());
  const late = expired.find((entry) => entry.startsWith("late after "));
  assert(late !== undefined && Number(late.split(" ").at(-1)) >= 59, late);
  timer.close();
});

Deno.test("DeadlineTimer moves a restarted deadline later, and an earlier one set later still runs first", async () => {
  const timer = new DeadlineTimer();
  const expired: string[] = [];
  let restarted = 0;
  let movedAfter = 0;
  const moved = timer.add(200, () => {
    movedAfter = performance.now() - restarted;
    expired.push("moved");
  });
  await Promise.resolve();
  restarted = performance.now();
  timer.restart(moved, 400);
  // Added while the timer waits for a later deadline: it is set again for this one.
  timer.add(10, () => expired.push("short"));
  await until(() => expired.length >= 2);
  assertEquals(expired.toSorted(), ["moved", "short"]);
  assert(movedAfter >= 399, `the restarted deadline expired ${movedAfter} ms after its restart`);
  timer.close();
});

Deno.test("DeadlineTimer keeps one timer for many calls, expires the rest after one throws, and stops on close", async () => {
  const timer = new DeadlineTimer();
  // A stream of calls that end before their deadline: nothing expires.
  for (let i = 0; i < 1000; i++) timer.delete(timer.add(20, () => assert(false, "not expired")));
  const expired: number[] = [];
  timer.add(10, () => {
    throw new Error("a listener's failure");
  });
  timer.add(10, () => expired.push(1));
  await until(() => expired.length >= 1);
  await sleep(40);
  assertEquals(expired, [1]);
  timer.add(10, () => expired.push(2));
  timer.close();
  await sleep(30);
  assertEquals(expired, [1], "a closed timer expires nothing");
});
