import { assertEquals } from "@std/assert";
import plugin from "../../lint/toolroute_rules.ts";

/** The messages the plugin reports for a file's source. */
function reports(filename: string, source: string): string[] {
  return Deno.lint.runPlugin(plugin, filename, source).map((d) => `${d.id}: ${d.message}`);
}

Deno.test("portable-core reports the Deno namespace, node: modules and src/deno imports in src/core", () => {
  const found = reports(
    "/repo/src/core/probe.ts",
    [
      'import { readFile } from "node:fs";',
      'import { x } from "../deno/builtins/x.ts";',
      "export const pid = Deno.pid;",
      "export type File = Deno.FsFile;",
    ].join("\n"),
  );
  assertEquals(found.length, 4);
  assertEquals(found.every((line) => line.startsWith("toolroute/portable-core")), true);
});

Deno.test("portable-core leaves src/deno and web-standard core code alone", () => {
  assertEquals(reports("/repo/src/deno/probe.ts", "export const pid = Deno.pid;"), []);
  assertEquals(
    reports("/repo/src/core/probe.ts", 'import { z } from "zod";\nexport const f = fetch;'),
    [],
  );
});

Deno.test("two-positional-arguments allows two positional arguments plus an options object", () => {
  const source = [
    "export function a(x: number, y: number) {}",
    "export function b(x: number, y: number, options: { z?: number } = {}) {}",
    "export function c(x: number, y: number, { z }: { z: number }) {}",
    "export const d = (x: number, y: number, settings: CallSettings) => {};",
    "function local(a: number, b: number, c: number, d: number) {}",
  ].join("\n");
  assertEquals(reports("/repo/src/core/probe.ts", source), []);
});

Deno.test("two-positional-arguments reports a third positional argument and a fourth of any kind", () => {
  const source = [
    "export function a(x: number, y: number, z: number) {}",
    "export const b = (x: number, y: number, options: object, extra: number) => {};",
  ].join("\n");
  const found = reports("/repo/src/deno/probe.ts", source);
  assertEquals(found, [
    "toolroute/two-positional-arguments: exported function 'a' takes 3 positional arguments: keep at most two and move the rest into an options object",
    "toolroute/two-positional-arguments: exported function 'b' takes 4 positional arguments: keep at most two and move the rest into an options object",
  ]);
});
