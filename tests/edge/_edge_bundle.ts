/**
 * Builds and inspects edge bundles for `workerd_test.ts`: runs `deno task bundle:edge`, reads the
 * bundle's inputs from its source map (the esbuild inputs that produced code), walks the module
 * graph with `deno info`, and measures gzipped sizes.
 *
 * @module
 */

import { join } from "@std/path";
import type { SourceMap } from "./_source_map.ts";

/** The repository root. */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/** A built bundle. */
export interface EdgeBundle {
  /** Absolute path of the bundle. */
  path: string;
  /** The bundle's code. */
  code: string;
  /** The files that produced code in the bundle (from its source map), relative to it. */
  inputs: string[];
  /** The bundle's source map. */
  map: SourceMap;
}

/**
 * Runs a Deno subcommand in the repository root and returns its stdout; throws with its stderr
 * when it fails.
 *
 * @param args The arguments after `deno`.
 * @returns The standard output.
 */
export async function deno(args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    // npm packages resolve with the `module` condition, as `deno task bundle:edge` does (esbuild and
    // webpack add it by default): @opentelemetry/api's ES module build, which tree-shakes, instead
    // of its CommonJS one.
    env: { NO_COLOR: "1", DENO_CONDITIONS: "module" },
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

/**
 * Runs `deno task bundle:edge` and reads `dist/edge_worker.js` with its source map.
 *
 * @returns The bundle.
 */
export async function buildEdgeWorker(): Promise<EdgeBundle> {
  await deno(["task", "bundle:edge"]);
  return await readBundle(join(ROOT, "dist/edge_worker.js"));
}

/**
 * Bundles one entry for the browser platform, minified with a source map.
 *
 * @param entry The entry, relative to the root.
 * @param output The bundle path, relative to the root.
 * @param extra More `deno bundle` flags, such as `--external=zod`.
 * @returns The bundle.
 */
export async function bundle(
  entry: string,
  output: string,
  extra: string[] = [],
): Promise<EdgeBundle> {
  await deno([
    "bundle",
    "--platform=browser",
    "--minify",
    "--sourcemap=external",
    ...extra,
    `--output=${output}`,
    entry,
  ]);
  return await readBundle(join(ROOT, output));
}

/**
 * The `--external` flags that leave every npm dependency of deno.json out of a bundle (Deno
 * 2.9.6's `--packages=external` keeps import-map packages in).
 *
 * @returns One flag per npm import of deno.json.
 */
export async function npmExternals(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))) as {
    imports: Record<string, string>;
  };
  return Object.entries(config.imports)
    .filter(([, target]) => target.startsWith("npm:"))
    .map(([name]) => `--external=${name.endsWith("/") ? `${name}*` : name}`);
}

async function readBundle(path: string): Promise<EdgeBundle> {
  const code = await Deno.readTextFile(path);
  const map = JSON.parse(await Deno.readTextFile(`${path}.map`)) as SourceMap;
  return { path, code, inputs: map.sources, map };
}

/**
 * The local files (`file:` URLs) and all specifiers of an entry's module graph.
 *
 * @param entry The entry, relative to the root.
 * @returns Every module specifier of the graph.
 */
export async function moduleGraph(entry: string): Promise<string[]> {
  const info = JSON.parse(await deno(["info", "--json", entry])) as {
    modules: { specifier: string }[];
    npmPackages: Record<string, unknown>;
  };
  return [
    ...info.modules.map((module) => module.specifier),
    ...Object.keys(info.npmPackages).map((name) => `npm:${name}`),
  ];
}

/**
 * Static and dynamic imports and requires of `node:` modules in bundled code.
 *
 * @param code The bundle.
 * @returns The `node:` specifiers found.
 */
export function nodeImports(code: string): string[] {
  const found = code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`](node:[^"'`]+)/g,
  );
  return [...new Set([...found].map((match) => match[1]))];
}

/**
 * The gzipped size of a text, in bytes.
 *
 * @param text The text.
 * @returns Its size after gzip.
 */
export async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}
