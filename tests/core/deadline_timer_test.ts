import { assert, assertEquals } from "@std/assert";
import { DeadlineTimer } from "../../src/core/deadline_timer.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("DeadlineTimer expires each deadline once when it passes, and not a deleted one", async () => {
  const timer = new DeadlineTimer();
  const expired: string[] = [];
  const started = performance.now();
  timer.add(60, () => expired.push(`late after ${performance.now() - started}`));
  timer.add(20, () => expired.push("early"));
  const deleted = timer.add(10, () => expired.push("deleted"));
  timer.delete(deleted);
  await sleep(40);
  assertEquals(expired, ["early"]);
  await sleep(60);
  assertEquals(expired.length, 2);
  assert(Number(expired[1].split(" ").at(-1)) >= 59, expired[1]);
  timer.close();
});

Deno.test("DeadlineTimer moves a restarted deadline later, and an earlier one set later still runs first", async () => {
  const timer = new DeadlineTimer();
  const expired: string[] = [];
  const moved = timer.add(30, () => expired.push("moved"));
  await sleep(15);
  timer.restart(moved, 60);
  // Added while the timer waits for a later deadline: it is set again for this one.
  timer.add(10, () => expired.push("short"));
  await sleep(35);
  assertEquals(expired, ["short"]);
  await sleep(60);
  assertEquals(expired, ["short", "moved"]);
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
  await sleep(40);
  assertEquals(expired, [1]);
  timer.add(10, () => expired.push(2));
  timer.close();
  await sleep(30);
  assertEquals(expired, [1], "a closed timer expires nothing");
});
