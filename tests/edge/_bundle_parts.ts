/**
 * Where the edge bundle's bytes go: each npm package (and toolroute's `src/core/mcp` and the rest
 * of `src/core`) with its code's size, raw and gzipped on its own, from the bundle's source map.
 *
 * Run after `deno task bundle:edge`:
 * `deno run --config tests/edge/deno.json --allow-read tests/edge/_bundle_parts.ts [PREFIX]`;
 * a PREFIX (`@modelcontextprotocol`, `zod`, `toolroute`) lists that part module by module.
 *
 * @module
 */

import { codeOfInputs, type SourceMap } from "./_source_map.ts";
import { gzipSize } from "./_edge_bundle.ts";

/** The part a source belongs to: its npm package and version, or toolroute's room. */
export function partOf(source: string): string {
  const npm = source.match(/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\/([^/]+)\//);
  if (npm) return `${npm[1]}@${npm[2]}`;
  if (source.includes("/src/core/mcp/")) return "toolroute src/core/mcp";
  if (source.includes("/src/")) return "toolroute src/core (rest)";
  return source;
}

if (import.meta.main) {
  const code = await Deno.readTextFile("dist/edge_worker.js");
  const map: SourceMap = JSON.parse(await Deno.readTextFile("dist/edge_worker.js.map"));
  const detail = Deno.args[0];
  const parts = new Map<string, Set<string>>();
  for (const source of map.sources) {
    const part = partOf(source);
    const key = detail !== undefined && part.startsWith(detail) ? source : part;
    parts.set(key, (parts.get(key) ?? new Set()).add(source));
  }
  const rows: { part: string; raw: number; gzipped: number }[] = [];
  for (const [part, sources] of parts) {
    const text = codeOfInputs(code, map, (source) => sources.has(source));
    rows.push({ part, raw: text.length, gzipped: await gzipSize(text) });
  }
  rows.sort((a, b) => b.gzipped - a.gzipped);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`.padStart(9);
  console.log(`${kb(await gzipSize(code))} gzipped, the whole bundle`);
  for (const { part, raw, gzipped } of rows) {
    console.log(`${kb(gzipped)} gzipped ${kb(raw)} raw  ${part}`);
  }
}
