import { assert, assertStringIncludes } from "@std/assert";
import { describeBash } from "../../../../src/deno/builtins/bash/bash_description.ts";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";

Deno.test("describeBash() says plainly that sandbox none confines nothing", () => {
  const text = describeBash(resolveBuiltinContext({ workspace: "/ws", bash: { sandbox: "none" } }));
  assertStringIncludes(text, "NOT sandboxed");
  assertStringIncludes(text, "anything the operating-system user can");
  assertStringIncludes(text, "--allow-run does not confine");
});

Deno.test("describeBash() names what the bwrap sandbox shows, and the limits", () => {
  const text = describeBash(
    resolveBuiltinContext({
      workspace: "/ws",
      readOnlyRoots: ["/docs"],
      bash: true,
      commandTimeoutMs: 5000,
      outputMaxChars: 900,
    }),
  );
  assertStringIncludes(text, "bubblewrap sandbox");
  assertStringIncludes(text, "the read-only roots");
  assertStringIncludes(text, "no network");
  assertStringIncludes(text, "5000 ms");
  assertStringIncludes(text, "900 characters");
  assert(!text.includes("NOT sandboxed"));
});

Deno.test("describeBash() names the hosts a sandbox with a network reaches, not 'no network'", () => {
  const text = describeBash(
    resolveBuiltinContext({
      workspace: "/ws",
      bash: { sandbox: "bwrap", network: { allow: ["registry.npmjs.org"] } },
    }),
  );
  assertStringIncludes(text, "the network reaches only registry.npmjs.org");
  assert(!text.includes("no network"));
});
