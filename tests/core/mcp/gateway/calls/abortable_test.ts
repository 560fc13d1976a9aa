import { assertEquals, assertRejects } from "@std/assert";
import {
  raceSignal,
  sleep,
  withDeadline,
} from "../../../../../src/core/mcp/gateway/calls/abortable.ts";

Deno.test("raceSignal() ends the wait when the signal aborts, with its reason", async () => {
  const controller = new AbortController();
  const waiting = raceSignal(new Promise(() => {}), controller.signal);
  controller.abort(new Error("gone"));
  await assertRejects(() => waiting, Error, "gone");
  assertEquals(await raceSignal(Promise.resolve(1)), 1);
});

Deno.test("sleep() resolves after the delay or rejects when aborted", async () => {
  await sleep(1);
  const controller = new AbortController();
  const sleeping = sleep(10_000, controller.signal);
  controller.abort(new Error("woken"));
  await assertRejects(() => sleeping, Error, "woken");
});

Deno.test("withDeadline() stops work that takes too long", async () => {
  let stopped = false;
  await assertRejects(
    () => withDeadline(new Promise(() => {}), 5, () => new Error("too slow"), () => stopped = true),
    Error,
    "too slow",
  );
  assertEquals(stopped, true);
  assertEquals(await withDeadline(Promise.resolve("ok"), 1000, () => new Error("x")), "ok");
});
