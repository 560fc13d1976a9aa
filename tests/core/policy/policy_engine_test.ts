import { assertEquals, assertMatch } from "@std/assert";
import type { Policy, ToolCallEvent } from "../../../mod.ts";
import { EVERYTHING, policyRouter, ran } from "./_policy_fixture.ts";

/** The outcome of one call under a router policy (and a request policy): allow, ask or deny. */
async function outcome(
  policy: Policy,
  name: string,
  args: Record<string, unknown>,
  request?: Policy,
): Promise<string> {
  const router = policyRouter({ policy });
  const toolSet = await router.expose({ ...EVERYTHING, policy: request });
  if (!toolSet.has(name)) return "hidden";
  const result = await toolSet.call(name, args);
  if (result.code === "approval_required") return "ask";
  if (result.code === "permission_denied") return "deny";
  return result.isError ? `error ${result.code}` : "allow";
}

Deno.test("precedence: deny, then ask, then allow, then default (allow unless set)", async () => {
  const all = { deny: ["echo"], ask: ["echo"], allow: ["echo"] };
  assertEquals(await outcome(all, "echo", { text: "x" }), "hidden");
  assertEquals(await outcome({ ask: ["echo"], allow: ["echo"] }, "echo", { text: "x" }), "ask");
  assertEquals(await outcome({ allow: ["echo"], default: "deny" }, "echo", { text: "x" }), "allow");
  assertEquals(await outcome({}, "echo", { text: "x" }), "allow");
  assertEquals(await outcome({ default: "ask" }, "echo", { text: "x" }), "ask");
  assertEquals(await outcome({ default: "deny" }, "echo", { text: "x" }), "hidden");
  // Order within a list does not matter: deny beats an earlier allow.
  const bash = { allow: ["bash(git *)"], deny: ["bash(git push*)"] };
  assertEquals(await outcome(bash, "bash", { command: "git push origin" }), "deny");
  assertEquals(await outcome(bash, "bash", { command: "git log" }), "allow");
});

Deno.test("the router's and the request's policies: the stricter decision wins", async () => {
  const echo = { text: "x" };
  assertEquals(await outcome({ allow: ["*"] }, "echo", echo, { deny: ["echo"] }), "hidden");
  assertEquals(await outcome({ deny: ["echo"] }, "echo", echo, { allow: ["echo"] }), "hidden");
  assertEquals(await outcome({ ask: ["echo"] }, "echo", echo, { allow: ["echo"] }), "ask");
  assertEquals(await outcome({ allow: ["echo"] }, "echo", echo, { ask: ["echo"] }), "ask");
  assertEquals(await outcome({ default: "ask" }, "echo", echo, { default: "deny" }), "hidden");
  assertEquals(await outcome({}, "echo", echo, { default: "ask" }), "ask");
  assertEquals(await outcome({}, "echo", echo, {}), "allow");
});

Deno.test("bash(...) is a command-prefix glob checked on every part of a compound command", async () => {
  const policy = { allow: ["bash(git status*)", "bash(ls:*)"], default: "deny" as const };
  assertEquals(await outcome(policy, "bash", { command: "git status" }), "allow");
  assertEquals(await outcome(policy, "bash", { command: "git  status --short" }), "allow");
  assertEquals(await outcome(policy, "bash", { command: "ls" }), "allow");
  assertEquals(await outcome(policy, "bash", { command: "ls -la src" }), "allow");
  assertEquals(await outcome(policy, "bash", { command: "lsblk" }), "deny");
  assertEquals(await outcome(policy, "bash", { command: "git status; rm -rf /" }), "deny");
  assertEquals(await outcome(policy, "bash", { command: "git status && ls" }), "allow");
  assertEquals(await outcome(policy, "bash", { command: "git status $(rm -rf /)" }), "deny");
  assertEquals(await outcome(policy, "bash", { command: "ls `rm -rf /`" }), "deny");
  assertEquals(await outcome(policy, "bash", { action: "logs", processId: "1" }), "deny");
  const deny = { deny: ["bash(rm *)"] };
  assertEquals(await outcome(deny, "bash", { command: "rm -rf /tmp/x" }), "deny");
  assertEquals(await outcome(deny, "bash", { command: "echo hi | rm -rf x" }), "deny");
  assertEquals(await outcome(deny, "bash", { command: "FOO=1 rm -rf x" }), "deny");
  assertEquals(await outcome(deny, "bash", { command: "(rm -rf x)" }), "deny");
  assertEquals(await outcome(deny, "bash", { command: "echo rm" }), "allow");
});

Deno.test("file tools' specifiers are path globs resolved against the workspace", async () => {
  const policy = { deny: ["read_file(.env)", "write_file(/etc/**)"], ask: ["write_file(src/**)"] };
  assertEquals(await outcome(policy, "read_file", { path: ".env" }), "deny");
  assertEquals(await outcome(policy, "read_file", { path: "./.env" }), "deny");
  assertEquals(await outcome(policy, "read_file", { path: "/ws/.env" }), "deny");
  assertEquals(await outcome(policy, "read_file", { path: "src/../.env" }), "deny");
  assertEquals(await outcome(policy, "read_file", { path: "src/.env" }), "allow");
  assertEquals(await outcome(policy, "write_file", { path: "src/a/b.ts", content: "" }), "ask");
  assertEquals(await outcome(policy, "write_file", { path: "src", content: "" }), "ask");
  assertEquals(await outcome(policy, "write_file", { path: "srcs/a.ts", content: "" }), "allow");
  assertEquals(await outcome(policy, "write_file", { path: "/etc/passwd", content: "" }), "deny");
  const star = { deny: ["read_file(*.key)", "read_file(**/secrets/*)"] };
  assertEquals(await outcome(star, "read_file", { path: "a.key" }), "deny");
  assertEquals(await outcome(star, "read_file", { path: "dir/a.key" }), "allow");
  assertEquals(await outcome(star, "read_file", { path: "secrets/x" }), "deny");
  assertEquals(await outcome(star, "read_file", { path: "a/b/secrets/x" }), "deny");
});

Deno.test("apply_patch(...) checks every path a patch touches: any for deny/ask, all for allow", async () => {
  const patch = (...paths: string[]) =>
    [
      "*** Begin Patch",
      ...paths.flatMap((path) => [`*** Update File: ${path}`, "@@", "-a", "+b"]),
      "*** End Patch",
    ].join("\n");
  const policy = {
    deny: ["apply_patch(.github/**)"],
    allow: ["apply_patch(src/**)"],
    default: "ask" as const,
  };
  assertEquals(await outcome(policy, "apply_patch", { patch: patch("src/a.ts") }), "allow");
  assertEquals(
    await outcome(policy, "apply_patch", { patch: patch("src/a.ts", "README.md") }),
    "ask",
  );
  assertEquals(
    await outcome(policy, "apply_patch", { patch: patch("src/a.ts", ".github/ci.yml") }),
    "deny",
  );
  const unified = "--- a/.github/ci.yml\n+++ b/.github/ci.yml\n@@ -1 +1 @@\n-a\n+b\n";
  assertEquals(await outcome(policy, "apply_patch", { patch: unified }), "deny");
});

Deno.test("KEY=GLOB matches one argument; a bare glob on other tools matches string arguments", async () => {
  const policy = { ask: ["send_email(to=*@example.com)"], deny: ["deploy(prod*)"] };
  assertEquals(await outcome(policy, "send_email", { to: "a@example.com" }), "ask");
  assertEquals(await outcome(policy, "send_email", { to: "a@example.org" }), "allow");
  assertEquals(await outcome(policy, "deploy", { env: "production" }), "deny");
  assertEquals(await outcome(policy, "deploy", { env: "dev", target: "prod" }), "deny");
  assertEquals(await outcome(policy, "deploy", { env: "dev" }), "allow");
  const strict = { allow: ["deploy(dev)"], default: "deny" as const };
  assertEquals(await outcome(strict, "deploy", { env: "dev" }), "allow");
  assertEquals(await outcome(strict, "deploy", { env: "dev", target: "prod" }), "deny");
});

Deno.test("a denied call names the rule, runs nothing, and its event carries the decision", async () => {
  const events: ToolCallEvent[] = [];
  const router = policyRouter({
    policy: { deny: ["bash(rm *)"], ask: ["deploy"] },
    onEvent: (event) => events.push(event),
  });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  const denied = await toolSet.call("bash", { command: "rm -rf /" });
  assertEquals(denied.code, "permission_denied");
  assertMatch(denied.text, /policy rule "bash\(rm \*\)" of the router's policy/);
  assertEquals(ran, []);
  await toolSet.call("echo", { text: "x" });
  await toolSet.call("deploy", { env: "x" });
  assertEquals(events.map((e) => [e.tool, e.decision, e.rule, e.approval, e.code]), [
    ["bash", "deny", "bash(rm *)", undefined, "permission_denied"],
    ["echo", "allow", "default", undefined, undefined],
    ["deploy", "ask", "deploy", "pending", "approval_required"],
  ]);
});

Deno.test("a hidden tool is missing with a policy reason, absent from every format, unknown if called", async () => {
  const router = policyRouter({ policy: { deny: ["source:builtin", "delete_*"] } });
  const toolSet = await router.expose(EVERYTHING);
  assertEquals(toolSet.names, ["deploy", "echo", "send_email"]);
  assertEquals(toolSet.tools.map((t) => t.function.name), ["deploy", "echo", "send_email"]);
  assertEquals(toolSet.toAnthropic().map((t) => t.name), ["deploy", "echo", "send_email"]);
  assertEquals(toolSet.toMcp().map((t) => t.name), ["deploy", "echo", "send_email"]);
  assertEquals(
    toolSet.missing.map((m) => [m.selection, m.name, /policy/.test(m.reason)]),
    [
      ["builtins", "apply_patch", true],
      ["builtins", "bash", true],
      ["builtins", "read_file", true],
      ["builtins", "write_file", true],
      ["functions", "delete_user", true],
    ],
  );
  assertEquals((await toolSet.call("delete_user", { id: "1" })).code, "unknown_tool");
  assertEquals((await toolSet.call("bash", { command: "ls" })).code, "unknown_tool");
});

Deno.test("invalid arguments to a tool with specifier rules are invalid_arguments, and nothing runs", async () => {
  const router = policyRouter({ policy: { ask: ["bash(git *)"] } });
  const toolSet = await router.expose(EVERYTHING);
  ran.length = 0;
  assertEquals((await toolSet.call("bash", "{not json")).code, "invalid_arguments");
  assertEquals(ran, []);
});
