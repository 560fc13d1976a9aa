import { assertEquals, assertThrows } from "@std/assert";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { denoFlags } from "../../../../src/deno/builtins/permissions/deno_flags.ts";

Deno.test("denoFlags() without bash grants only reading and writing the roots", () => {
  assertEquals(denoFlags({ workspace: "/srv/ws", readOnlyRoots: ["/srv/docs", "/opt/lib"] }), [
    "--allow-read=/srv/ws,/srv/docs,/opt/lib",
    "--allow-write=/srv/ws",
    "--no-prompt",
  ]);
});

Deno.test("denoFlags() with bash unconfined adds bash and the context's variables", () => {
  assertEquals(denoFlags({ workspace: "/srv/ws", bash: { sandbox: "none" } }), [
    "--allow-read=/srv/ws",
    "--allow-write=/srv/ws",
    "--allow-run=bash",
    "--allow-env=PATH,HOME,LANG,TERM",
    "--no-prompt",
  ]);
});

Deno.test("denoFlags() with bash sandboxed adds bwrap; bash's own env replaces the context's", () => {
  const context = {
    workspace: "/srv/ws/",
    env: ["PATH", "HOME"],
    bash: { sandbox: "bwrap" as const, env: ["PATH", "CI"] },
  };
  const expected = [
    "--allow-read=/srv/ws",
    "--allow-write=/srv/ws",
    "--allow-run=bash,bwrap",
    "--allow-env=PATH,CI",
    "--no-prompt",
  ];
  assertEquals(denoFlags(context), expected);
  assertEquals(denoFlags(resolveBuiltinContext(context)), expected);
});

Deno.test("denoFlags() with bash: true is the sandboxed setting with the context's variables", () => {
  assertEquals(denoFlags({ workspace: "/srv/ws", bash: true, env: ["PATH"] }), [
    "--allow-read=/srv/ws",
    "--allow-write=/srv/ws",
    "--allow-run=bash,bwrap",
    "--allow-env=PATH",
    "--no-prompt",
  ]);
});

Deno.test("denoFlags() leaves out --allow-env when bash passes no variable", () => {
  assertEquals(denoFlags({ workspace: "/srv/ws", bash: { sandbox: "none", env: [] } }), [
    "--allow-read=/srv/ws",
    "--allow-write=/srv/ws",
    "--allow-run=bash",
    "--no-prompt",
  ]);
});

Deno.test("denoFlags() refuses a path with a comma, which a Deno flag list cannot express", () => {
  assertThrows(
    () => denoFlags({ workspace: "/srv/ws", readOnlyRoots: ["/srv/a,b"] }),
    TypeError,
    'the path "/srv/a,b" contains a comma',
  );
});
