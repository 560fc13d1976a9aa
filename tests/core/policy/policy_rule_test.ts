import { assertEquals, assertThrows } from "@std/assert";
import { parseRule, ruleNamesTool } from "../../../src/core/policy/policy_rule.ts";
import { compilePolicy } from "../../../src/core/policy/policy_engine.ts";
import type { SourceKind } from "../../../mod.ts";
import type { RoutedTool } from "../../../src/core/unstable_source.ts";
import { policyRouter } from "./_policy_fixture.ts";

function tool(name: string, source: SourceKind = "function", origin = name): RoutedTool {
  return {
    name,
    source,
    origin,
    description: "",
    inputSchema: { type: "object" },
    execute: () => 1,
  };
}

Deno.test("parseRule() reads NAME, NAME(SPECIFIER), source: and server: forms", () => {
  assertEquals(parseRule("bash", "allow").specifier, undefined);
  const withSpec = parseRule(" bash(git status*) ", "ask");
  assertEquals([withSpec.text, withSpec.specifier?.glob, withSpec.kind], [
    "bash(git status*)",
    "git status*",
    "name",
  ]);
  assertEquals(parseRule("send_email(to=*@example.com)", "deny").specifier?.key, "to");
  assertEquals(parseRule("source:global_mcp", "deny").source, "global_mcp");
  assertEquals(parseRule("server:github/create_*", "ask").kind, "server");
});

Deno.test("ruleNamesTool() globs names, matches whole sources and MCP servers by origin", () => {
  const del = tool("delete_user");
  assertEquals(ruleNamesTool(parseRule("delete_*", "deny"), del), true);
  assertEquals(ruleNamesTool(parseRule("*", "deny"), del), true);
  assertEquals(ruleNamesTool(parseRule("delete_?ser", "deny"), del), true);
  assertEquals(ruleNamesTool(parseRule("delete", "deny"), del), false);
  assertEquals(ruleNamesTool(parseRule("source:function", "deny"), del), true);
  assertEquals(ruleNamesTool(parseRule("source:builtin", "deny"), del), false);
  const remote = tool("github_create_issue", "global_mcp", "github/create_issue");
  assertEquals(ruleNamesTool(parseRule("server:github", "deny"), remote), true);
  assertEquals(ruleNamesTool(parseRule("server:git*", "deny"), remote), true);
  assertEquals(ruleNamesTool(parseRule("server:github/create_*", "deny"), remote), true);
  assertEquals(ruleNamesTool(parseRule("server:github/delete_*", "deny"), remote), false);
  assertEquals(ruleNamesTool(parseRule("server:gitlab", "deny"), remote), false);
  const local = tool("weather_forecast", "local_mcp", "weather/forecast");
  assertEquals(ruleNamesTool(parseRule("server:weather", "ask"), local), true);
  // A function tool's origin is its name: server: rules never reach it.
  assertEquals(ruleNamesTool(parseRule("server:delete_user", "ask"), del), false);
});

Deno.test("a malformed rule is a TypeError at construction that names it", () => {
  for (
    const [rule, pattern] of [
      ["bash(", /"bash\(" in "deny"/],
      ["bash()", /specifier in parentheses is empty/],
      ["bash(git", /"bash\(git" in "deny"/],
      ["", /"" in "deny"/],
      ["two words", /"two words"/],
      ["source:plugins", /sources are builtin, user_mcp/],
      ["server:", /server:ID/],
    ] as const
  ) {
    assertThrows(() => policyRouter({ policy: { deny: [rule] } }), TypeError, undefined);
    assertThrows(() => parseRule(rule, "deny"), TypeError);
    try {
      parseRule(rule, "deny");
    } catch (error) {
      assertEquals(pattern.test((error as Error).message), true, (error as Error).message);
    }
  }
  assertThrows(
    () => policyRouter({ policy: { deny: [42 as unknown as string] } }),
    TypeError,
    "42",
  );
  assertThrows(
    () => policyRouter({ policy: { deny: "bash" as unknown as string[] } }),
    TypeError,
    '"deny" must be an array',
  );
  assertThrows(
    () => policyRouter({ policy: { default: "maybe" as "allow" } }),
    TypeError,
    '"default" must be "allow", "ask" or "deny"',
  );
  assertThrows(
    () => compilePolicy({ alow: ["x"] }, "router"),
    TypeError,
    'unknown key "alow"',
  );
});

Deno.test("a malformed request policy throws a TypeError from expose()", async () => {
  const router = policyRouter();
  let error: unknown;
  try {
    await router.expose({ functions: ["echo"], policy: { ask: ["echo(x"] } });
  } catch (thrown) {
    error = thrown;
  }
  assertEquals(error instanceof TypeError, true);
  assertEquals(String(error).includes('"echo(x" in "ask"'), true);
});
