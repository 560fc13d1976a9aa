/**
 * Finding 8 (round 3): path rules were text for `edit`, `glob` and `grep`, and `apply_patch(...)`
 * read unified headers with a regex that missed quoted and tab-separated paths the patch parser
 * then applied. Path specifiers now resolve the path every built-in path tool declares, and
 * `apply_patch`'s paths come from the parser that applies the patch.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { compilePolicy, PolicyEngine } from "../../../src/core/policy/policy_engine.ts";
import { globToRegExp } from "../../../src/core/policy/_glob.ts";
import type { Policy } from "../../../mod.ts";
import { parsePatchText } from "../../../src/deno/builtins/patch/parse_patch_text.ts";
import { fakeBuiltins } from "./_policy_fixture.ts";

const builtins = fakeBuiltins("/ws");
const tool = (name: string) => builtins.resolve([name]).tools[0];

/** The header regex this finding replaced (it read `+++ "b/x"` and `+++<tab>x` wrongly). */
function oldPatchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const codex = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (codex) paths.push(codex[1].trim());
    const unified = codex ? null : /^(?:---|\+\+\+) (.+?)(?:\t.*)?$/.exec(line);
    if (unified && unified[1].trim() !== "/dev/null") {
      const path = unified[1].trim();
      paths.push(/^[ab]\//.test(path) ? path.slice(2) : path);
    }
  }
  return paths;
}

function decide(policy: Policy, name: string, args: Record<string, unknown>): string {
  const engine = new PolicyEngine([compilePolicy(policy, "router")], "/ws");
  return engine.decide(tool(name), () => args).action;
}

Deno.test("edit, glob and grep paths resolve like read_file's: ./, absolute and .. no longer pass deny", () => {
  const text = globToRegExp("src/**", "text");
  for (const path of ["./src/a.ts", "/ws/src/a.ts", "x/../src/a.ts", "/ws/./x/../src/a.ts"]) {
    // Before, the specifier read these tools' arguments as text: none of them matched.
    assert(!text.test(path), path);
    assertEquals(decide({ deny: ["edit(src/**)"] }, "edit", { path }), "deny", path);
    assertEquals(decide({ deny: ["grep(src/**)"] }, "grep", { pattern: "x", path }), "deny");
    assertEquals(decide({ deny: ["glob(src/**)"] }, "glob", { pattern: "*", path }), "deny");
  }
  assertEquals(decide({ deny: ["edit(src/**)"] }, "edit", { path: "srcs/a.ts" }), "allow");
  assertEquals(decide({ deny: ["edit(src/**)"] }, "edit", { path: "docs/a.ts" }), "allow");
});

Deno.test("a search is the folder it searches: deny and ask also match a folder holding what they name", () => {
  const deny = { deny: ["grep(secrets/**)", "glob(**/.env)"] };
  // grep and glob without `path` search the whole workspace, secrets/ included.
  assertEquals(decide(deny, "grep", { pattern: "KEY" }), "deny");
  assertEquals(decide(deny, "grep", { pattern: "KEY", path: "." }), "deny");
  assertEquals(decide(deny, "grep", { pattern: "KEY", path: "secrets/a" }), "deny");
  assertEquals(decide(deny, "grep", { pattern: "KEY", path: "src" }), "allow");
  assertEquals(decide(deny, "glob", { pattern: "**/*", path: "src" }), "deny");
  // An allow rule covers the folder searched, not a parent of it.
  const allow: Policy = { allow: ["grep(src/**)"], default: "ask" };
  assertEquals(decide(allow, "grep", { pattern: "x", path: "src" }), "allow");
  assertEquals(decide(allow, "grep", { pattern: "x", path: "src/lib" }), "allow");
  assertEquals(decide(allow, "grep", { pattern: "x" }), "ask");
  assertEquals(decide(allow, "grep", { pattern: "x", path: "src/.." }), "ask");
});

Deno.test("paths outside the workspace never match a workspace glob's allow; only an absolute glob names them", () => {
  const allow: Policy = { allow: ["edit(src/**)", "read_file(**)"], default: "ask" };
  for (const path of ["/etc/passwd", "/ws/src/../../etc/passwd", "../ws2/src/a.ts", "/ws2/src/a"]) {
    assertEquals(decide(allow, "edit", { path }), "ask", path);
    assertEquals(decide(allow, "read_file", { path }), "ask", path);
  }
  assertEquals(decide(allow, "edit", { path: "/ws/src/a.ts" }), "allow");
  assertEquals(decide({ deny: ["read_file(/etc/**)"] }, "read_file", { path: "../etc/x" }), "deny");
  assertEquals(decide({ deny: ["read_file(src/**)"] }, "read_file", { path: "/etc/x" }), "allow");
  // An absolute glob names a path anywhere, the workspace included.
  const anywhere = { deny: ["read_file(/**/.env)"] };
  for (const path of [".env", "a/.env", "/ro/b/.env", "../x/.env"]) {
    assertEquals(decide(anywhere, "read_file", { path }), "deny", path);
  }
});

Deno.test("a backslash counts both as a separator and as a character: deny matches either, allow needs both", () => {
  assertEquals(decide({ deny: ["edit(src/**)"] }, "edit", { path: "src\\a.ts" }), "deny");
  const allow: Policy = { allow: ["edit(src/**)"], default: "ask" };
  // On POSIX this is a file named `x\..\src\a.ts` in the workspace root, not in src/.
  assertEquals(decide(allow, "edit", { path: "x\\..\\src\\a.ts" }), "ask");
  assertEquals(decide(allow, "edit", { path: "src/a\\b.ts" }), "allow");
});

Deno.test("apply_patch paths come from the parser that applies the patch: quoted and tab headers", () => {
  const patches = [
    '--- "a/src/x.ts"\n+++ "b/src/x.ts"\n@@ -1 +1 @@\n-a\n+b\n',
    '--- /dev/null\n+++ "b/src/new.ts"\n@@ -0,0 +1 @@\n+evil\n',
    "--- /dev/null\n+++\tsrc/new.ts\n@@ -0,0 +1 @@\n+evil\n",
    '--- "a/docs/x"\n+++ "b/src/moved"\n@@ -1 +1 @@\n-a\n+b\n',
  ];
  const rule = globToRegExp("/ws/src/**", "path");
  for (const patch of patches) {
    // The attack: the applying parser writes under src/ ...
    const written = parsePatchText(patch).flatMap((edit) =>
      edit.kind === "update" && edit.moveTo ? [edit.path, edit.moveTo] : [edit.path]
    );
    assert(written.some((path) => path.startsWith("src/")), JSON.stringify(written));
    // ... while the regex the policy used named no path under src/.
    assert(!oldPatchPaths(patch).some((path) => rule.test(`/ws/${path}`)), patch);
    assertEquals(decide({ deny: ["apply_patch(src/**)"] }, "apply_patch", { patch }), "deny");
    assertEquals(
      decide({ allow: ["apply_patch(docs/**)"], default: "ask" }, "apply_patch", { patch }),
      "ask",
    );
  }
});

Deno.test("apply_patch: every path of both formats, move destinations included; a patch that does not parse fails closed", () => {
  const codex = [
    "*** Begin Patch",
    "*** Update File: docs/a.md",
    "*** Move to: src/a.ts",
    "@@",
    "-a",
    "+b",
    "*** Add File: docs/b.md",
    "+x",
    "*** Delete File: docs/c.md",
    "*** End Patch",
  ].join("\n");
  assertEquals(decide({ deny: ["apply_patch(src/**)"] }, "apply_patch", { patch: codex }), "deny");
  const allow: Policy = { allow: ["apply_patch(docs/**)"], default: "ask" };
  assertEquals(decide(allow, "apply_patch", { patch: codex }), "ask");
  const inDocs = codex.replace("src/a.ts", "docs/renamed.md");
  assertEquals(decide(allow, "apply_patch", { patch: inDocs }), "allow");
  for (const patch of ["not a patch", "*** Begin Patch\n*** Update File: docs/a.md\n"]) {
    assertEquals(decide(allow, "apply_patch", { patch }), "ask", patch);
    assertEquals(decide({ deny: ["apply_patch(src/**)"] }, "apply_patch", { patch }), "deny");
  }
  assertEquals(decide({ deny: ["apply_patch(src/**)"] }, "apply_patch", { patch: 7 }), "deny");
});

Deno.test("a host's own built-in path tool without a declaration fails closed instead of matching text", () => {
  const { policySubjects: _, ...undeclared } = tool("edit");
  const engine = (policy: Policy) => new PolicyEngine([compilePolicy(policy, "router")], "/ws");
  const args = () => ({ path: "docs/a.md" });
  assertEquals(engine({ deny: ["edit(src/**)"] }).decide(undeclared, args).action, "deny");
  assertEquals(
    engine({ allow: ["edit(docs/**)"], default: "ask" }).decide(undeclared, args).action,
    "ask",
  );
  assertEquals(engine({ deny: ["edit(src/**)"] }).decide(tool("edit"), args).action, "allow");
});
