import { assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import {
  showArguments,
  shownDigest,
  summarizeShown,
  visibleText,
} from "../../../src/core/policy/shown_arguments.ts";
import { EVERYTHING, policyRouter, ran } from "./_policy_fixture.ts";

Deno.test("visibleText() shows controls, bidi and invisible characters as escapes, and long blank runs as counts", () => {
  assertEquals(
    visibleText("a\u202Eb\u2066c\u2069\x1b[2J\x00\x85\u200B\u00A0\uFEFF\u{E0041}"),
    "a\\u202Eb\\u2066c\\u2069\\u001B[2J\\u0000\\u0085\\u200B\\u00A0\\uFEFF\\u{E0041}",
  );
  assertEquals(visibleText("x\ny\tz\r"), "x\\n\ny\\tz\\r");
  assertEquals(visibleText("a" + " ".repeat(400) + "b"), "a\\[400 × space]b");
  assertEquals(visibleText("a" + " ".repeat(7) + "b"), "a       b", "short runs stay");
  assertEquals(visibleText("\n".repeat(50)), "\\[50 × \\n]");
  assertEquals(visibleText("\u200B".repeat(9)), "\\[9 × \\u200B]");
  // A backslash is doubled, so the text cannot forge an escape or a count.
  assertEquals(visibleText("\\[400 × space]\\u202E"), "\\\\[400 × space]\\\\u202E");
  assertEquals(visibleText("plain ünïcödé 漢字 👍"), "plain ünïcödé 漢字 👍");
  assertEquals(visibleText("\u{E0041}".repeat(9) + "\uD800x"), "\\[9 × \\u{E0041}]\\uD800x");
});

Deno.test("showArguments() shows every argument, strings as text and the rest as visible JSON", () => {
  assertEquals(
    showArguments({ command: "ls\u202E", n: 2, deep: { x: ["\u202E", "  a"] }, "we ird": true }),
    'command: ls\\u202E\nn: 2\ndeep: {"x":["\\u202E","  a"]}\n"we ird": true',
  );
  assertEquals(showArguments({}), "(no arguments)");
});

Deno.test("summarizeShown() says plainly how many characters are not shown", () => {
  const shown = "x".repeat(3_431);
  assertEquals(summarizeShown(shown), `${"x".repeat(1_000)}… (2,431 more characters not shown)`);
  assertEquals(summarizeShown("short"), "short");
});

Deno.test("shownDigest() differs for other arguments even when they show alike", async () => {
  const one = await shownDigest("t", { shown: showArguments({ n: 1 }), args: { n: 1 } });
  assertMatch(one, /^sha256-[0-9a-f]{64}$/);
  assertEquals(await shownDigest("t", { shown: showArguments({ n: 1 }), args: { n: 1 } }), one);
  assertNotEquals(
    await shownDigest("t", { shown: showArguments({ n: "1" }), args: { n: "1" } }),
    one,
  );
  assertNotEquals(await shownDigest("u", { shown: showArguments({ n: 1 }), args: { n: 1 } }), one);
});

Deno.test("finding 10: a pending approval shows the payload past 400 spaces, bidi made visible, and says what is not shown", async () => {
  const router = policyRouter({ policy: { ask: ["bash"] } });
  const toolSet = await router.expose(EVERYTHING);
  const attack = `npm test${" ".repeat(400)}; echo PAYLOAD > hidden.txt \u202Etxt.exe`;
  const { approval } = await toolSet.call("bash", { command: attack });
  assertEquals(approval!.arguments.command, attack, "the payload reached the approval");
  assertEquals(
    approval!.summary,
    "command: npm test\\[400 × space]; echo PAYLOAD > hidden.txt \\u202Etxt.exe",
  );
  assertEquals(approval!.shown, approval!.summary);
  const long = await toolSet.call("bash", { command: "y".repeat(5_000) });
  assertMatch(long.approval!.summary, /… \(4,009 more characters not shown\)$/);
  assertEquals(long.approval!.shown, `command: ${"y".repeat(5_000)}`);
});

Deno.test("arguments changed after they were shown for approval run nothing", async () => {
  const router = policyRouter({ policy: { ask: ["deploy"] } });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  const args = { env: "dev" };
  const result = await toolSet.call("deploy", args, {
    approve: (request) => {
      assertEquals(request.shown, "env: dev");
      args.env = "prod"; // whoever holds the object changes it while the person looks
      return true;
    },
  });
  assertEquals(result.code, "permission_denied");
  assertMatch(result.text, /changed after they were shown for approval; it did not run/);
  assertEquals(ran, []);
  // An answer for another text does not fit either; the right digest does.
  const other = await toolSet.call("deploy", { env: "dev" }, {
    approve: () => ({ approved: true, shownDigest: "sha256-" + "0".repeat(64) }),
  });
  assertMatch(other.text, /names other arguments than the ones shown/);
  const fits = await toolSet.call("deploy", { env: "dev" }, {
    approve: (request) => ({ approved: true, shownDigest: request.shownDigest }),
  });
  assertEquals(fits.text, "deploy ran");
  assertEquals(ran, [{ tool: "deploy", args: { env: "dev" } }]);
});

Deno.test("a pending approval is bound to its digest: another's digest, in it or in the answer, runs nothing", async () => {
  const router = policyRouter({ policy: { ask: ["deploy"] } });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  const dev = (await toolSet.call("deploy", { env: "dev" })).approval!;
  const prod = (await toolSet.call("deploy", { env: "prod" })).approval!;
  assertNotEquals(dev.shownDigest, prod.shownDigest);
  const swapped = await toolSet.approve({ ...prod, shownDigest: dev.shownDigest });
  assertEquals(swapped.code, "permission_denied", "a digest swapped in breaks the signature");
  const answered = await router.resume(prod, { approved: true, shownDigest: dev.shownDigest });
  assertEquals(answered.code, "permission_denied", "an answer given for another text");
  assertMatch(answered.text, /not for the arguments shown/);
  assertEquals(ran, []);
  assertEquals((await toolSet.approve(dev)).text, "deploy ran");
  assertEquals(ran, [{ tool: "deploy", args: { env: "dev" } }]);
});
