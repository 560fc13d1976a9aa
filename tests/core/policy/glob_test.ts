import { assertEquals } from "@std/assert";
import { globToRegExp } from "../../../src/core/policy/_glob.ts";
import { policyRouter } from "./_policy_fixture.ts";

/** The expression the glob's source describes, run by JavaScript's own engine. */
const backtracking = (regex: RegExp) => new RegExp(regex.source);

Deno.test("globToRegExp() matches as its source expression does, text and path mode", () => {
  const cases: [string, "text" | "path", string[]][] = [
    ["git status*", "text", ["git status", "git status -s", "git statu", "git status\n-s"]],
    ["*rm*-rf*", "text", ["rm -rf /", "x rm y -rf", "rm -r", "", "-rfrm"]],
    ["a?c", "text", ["abc", "a/c", "ac", "abbc"]],
    ["send_*", "text", ["send_email", "send_", "sen"]],
    ["/ws/src/**", "path", ["/ws/src", "/ws/src/a", "/ws/src/a/b.ts", "/ws/srcx", "/ws/src/\n"]],
    ["/ws/**/*.ts", "path", ["/ws/a.ts", "/ws/x/y/a.ts", "/ws/a.js", "/ws/x/a.ts/b"]],
    ["/ws/*.ts", "path", ["/ws/a.ts", "/ws/x/a.ts"]],
    ["/ws/a**b", "path", ["/ws/ab", "/ws/a/x/b", "/ws/a\nb"]],
    ["/ws/**/x*y/z", "path", ["/ws/x1/x2y/z", "/ws/xy/z", "/ws/x/y/z"]],
    ["/ws/?.md", "path", ["/ws/a.md", "/ws//.md", "/ws/ab.md"]],
    ["a.b(c)[d]{e}|f^$\\-+", "text", ["a.b(c)[d]{e}|f^$\\-+", "aXb(c)[d]{e}|f^$\\-+"]],
  ];
  for (const [glob, mode, texts] of cases) {
    const linear = globToRegExp(glob, mode);
    const reference = backtracking(linear);
    for (const text of texts) {
      assertEquals(
        linear.test(text),
        reference.test(text),
        `${glob} (${mode}) on ${JSON.stringify(text)}`,
      );
      assertEquals(linear.exec(text)?.[0], reference.exec(text)?.[0]);
      assertEquals(text.match(linear)?.[0], text.match(reference)?.[0]);
    }
  }
});

Deno.test("globToRegExp() matches a model's long argument without backtracking", () => {
  // As a backtracking expression, *rm*-rf* took 9 s over 80 000 characters of "rm" (quadratic),
  // and *a*b*c*d* never ended over 12 000: each star retried at every place of the ones before.
  const rm = globToRegExp("*rm*-rf*", "text");
  assertEquals(rm.test("rm".repeat(200_000)), false);
  assertEquals(rm.test(`${"rm".repeat(200_000)} -rf`), true);
  const many = globToRegExp("*a*b*c*d*e*f*g*h*", "text");
  assertEquals(many.test("abcdefg".repeat(50_000)), false);
  // With ? (not matched by parts): the places, still linear.
  const marks = globToRegExp("*a?b*c?d*e?f*", "text");
  assertEquals(marks.test("axbcxd".repeat(50_000)), false);
  assertEquals(marks.test(`${"axbcxd".repeat(50_000)}exf`), true);
  const path = globToRegExp(`/ws/${"**/".repeat(30)}x*y*z`, "path");
  assertEquals(path.test(`/ws/${"x/".repeat(2000)}xyy`), false);
  assertEquals(path.test(`/ws/${"x/".repeat(2000)}xyz`), true);
});

Deno.test("a value rule matches a model's long argument through the router without backtracking", async () => {
  const router = policyRouter({ policy: { deny: ["echo(text=*a*b*c*d*e*f*)"] } });
  const tools = await router.expose({ functions: ["echo"] });
  // As a backtracking expression this rule never ended over 12 000 characters of "abcde".
  const allowed = await tools.call("echo", { text: "abcde".repeat(100_000) });
  assertEquals([allowed.isError, allowed.text], [false, "echo ran"], "no f: the rule was read");
  const denied = await tools.call("echo", { text: `${"abcde".repeat(100_000)}f` });
  assertEquals(denied.code, "permission_denied");
  await router.close();
});
