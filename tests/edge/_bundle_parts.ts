/**
 * Where an edge bundle's bytes go, from its source map: each npm package and each of toolroute's
 * rooms with its code raw, gzipped on its own, and what the bundle loses without it (its share:
 * the parts' own sizes add up to more than the whole, as gzip shares strings between them); then
 * the code the bundle carries twice (the same source inlined by two packages).
 *
 * Run after `deno task bundle:edge`:
 * `deno run --config tests/edge/deno.json --allow-read tests/edge/_bundle_parts.ts [PREFIX] [--bundle=PATH]`;
 * a PREFIX (`@modelcontextprotocol`, `zod`, `toolroute`) lists that part module by module; PATH is
 * another bundle with its `.map` beside it (default `dist/edge_worker.js`), such as the raw SDK
 * worker's (`tests/edge/_raw_sdk_worker.ts`).
 *
 * @module
 */

import { parseArgs } from "@std/cli/parse-args";
import { codeOfInputs, type SourceMap } from "./_source_map.ts";
import { gzipSize } from "./_edge_bundle.ts";

/** The part a source belongs to: its npm package and version, or toolroute's room. */
export function partOf(source: string): string {
  // A dependency a package inlined from its own pnpm store (the SDK's cfworker, content-type).
  const inlined = source.match(/\.pnpm\/[^/]+@([^/@]+)\/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (inlined) return `${inlined[2]}@${inlined[1]} (inlined)`;
  const npm = source.match(/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\/([^/]+)\//);
  if (npm) return `${npm[1]}@${npm[2]}`;
  // toolroute's rooms (ARCHITECTURE.md); the gateway's subfolders count as the gateway.
  const room = source.match(/\/(src\/core(?:\/mcp(?:\/gateway|\/serve)?|\/[a-z_]+(?=\/))?)\//);
  if (room) return `toolroute ${room[1]}`;
  return source;
}

/**
 * The sources that repeat an earlier one: the same file (a path inside the SDK's inlined protocol
 * core, or the same path) with the same text, by index in `sources`, grouped by what they copy.
 *
 * @param map The bundle's source map.
 * @returns The indexes of the later copies, by what they are.
 */
export function laterCopies(map: SourceMap): Map<string, Set<number>> {
  const first = new Map<string, number>();
  const copies = new Map<string, Set<number>>();
  map.sources.forEach((source, index) => {
    const core = source.match(/@modelcontextprotocol\/[^/]+\/core-internal\/(.*)$/);
    const key = core ? `core-internal/${core[1]}` : source;
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, index);
      return;
    }
    const text = map.sourcesContent?.[index];
    if (text !== map.sourcesContent?.[earlier]) return;
    const what = core
      ? "the SDK's protocol core (client's and server's core-internal)"
      : partOf(source);
    copies.set(what, (copies.get(what) ?? new Set()).add(index));
  });
  return copies;
}

if (import.meta.main) {
  const flags = parseArgs(Deno.args, {
    string: ["bundle"],
    default: { bundle: "dist/edge_worker.js" },
  });
  const code = await Deno.readTextFile(flags.bundle);
  const map: SourceMap = JSON.parse(await Deno.readTextFile(`${flags.bundle}.map`));
  const detail = flags._[0] === undefined ? undefined : String(flags._[0]);
  const parts = new Map<string, Set<string>>();
  for (const source of map.sources) {
    const part = partOf(source);
    const key = detail !== undefined && part.startsWith(detail) ? source : part;
    parts.set(key, (parts.get(key) ?? new Set()).add(source));
  }
  // The mapped code only, so that a part's share is not blurred by the bundle's unmapped glue.
  const mapped = await gzipSize(codeOfInputs(code, map, () => true));
  const without = async (drop: (source: string, index: number) => boolean) =>
    mapped - await gzipSize(codeOfInputs(code, map, (source, index) => !drop(source, index)));
  const rows: { part: string; raw: number; gzipped: number; share: number }[] = [];
  for (const [part, sources] of parts) {
    const text = codeOfInputs(code, map, (source) => sources.has(source));
    const share = await without((source) => sources.has(source));
    rows.push({ part, raw: text.length, gzipped: await gzipSize(text), share });
  }
  rows.sort((a, b) => b.share - a.share);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`.padStart(9);
  console.log(`${kb(await gzipSize(code))} gzipped, the whole bundle`);
  console.log(`    share   gzipped       raw  part (share: what the bundle loses without it)`);
  for (const { part, raw, gzipped, share } of rows) {
    console.log(`${kb(share)} ${kb(gzipped)} ${kb(raw)}  ${part}`);
  }
  const copies = laterCopies(map);
  for (const [what, indexes] of copies) {
    const share = await without((_, index) => indexes.has(index));
    console.log(`${kb(share)} second copy of ${what}: ${indexes.size} file(s)`);
  }
  const all = new Set([...copies.values()].flatMap((indexes) => [...indexes]));
  const share = await without((_, index) => all.has(index));
  console.log(
    `${kb(await gzipSize(code) - share)} gzipped, the whole bundle without second copies`,
  );
}
