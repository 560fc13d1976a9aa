import { dirname, fromFileUrl, isAbsolute, join, resolve } from "@std/path";
import { parseJsonc } from "./parse_jsonc.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";
import { UsageError } from "./usage_error.ts";
import { LOCK_FILE } from "./tool_lock.ts";
import { TOOL_NAMES_FILE } from "./tool_names_file.ts";

/** What `serve` executes or reads as configuration at its next start. */
export interface StartupFiles {
  /** Existing files (absolute paths), sorted: config, modules, their local imports, Deno configs. */
  readonly files: readonly string[];
  /** Deno config names Deno would discover there if they existed (absolute paths), sorted. */
  readonly candidates: readonly string[];
  /** Files among `files` with more than one hard link: another name could rewrite them. */
  readonly linked: readonly string[];
}

/** Options of {@linkcode startupFiles}. */
export interface StartupFilesOptions {
  /**
   * The directory `serve` runs in (Deno discovers its config from there). Default: the current
   * one, when it may be read.
   */
  readonly cwd?: string;
  /** Most local files followed through the import graph. Default: 1,000 (the sandbox binds each). */
  readonly maxFiles?: number;
}

const CONFIG_NAMES = ["deno.json", "deno.jsonc", "package.json", "deno.lock"];
const CODE = /\.(?:[mc]?[jt]sx?|json|jsonc|wasm)$/i;
// Static and dynamic imports, re-exports, side-effect imports, `new URL("…", import.meta.url)`,
// triple-slash references and `@ts-types` hints: a string literal that names a module.
const SPECIFIERS = [
  /\b(?:import|export)\s[^;'"`]*?\bfrom\s*["']([^"'\n]+)["']/g,
  /\bimport\s*["']([^"'\n]+)["']/g,
  /\bimport\s*\(\s*["']([^"'\n]+)["']/g,
  /\bnew\s+URL\s*\(\s*["']([^"'\n]+)["']\s*,\s*import\.meta\.url/g,
  /\/\/\/\s*<reference\s+(?:path|types)\s*=\s*["']([^"'\n]+)["']/g,
  /@ts-types\s*=\s*["']([^"'\n]+)["']/g,
];

/**
 * Computes what `serve` executes or reads as configuration at its next start, so the tools can be
 * kept from rewriting it: the config file; the tool lock beside it (`toolroute.lock`, also when
 * absent: one created later would be read) and the kept tool names (`toolroute.names.json`); each module and its whole local import graph (parsed:
 * static and literal dynamic imports, `new URL(…, import.meta.url)`, references, bare specifiers
 * through the import map); the Deno configuration Deno discovers from the current directory and
 * from each module's directory upwards (`deno.json`, `deno.jsonc`, `package.json`, `deno.lock`, the
 * `importMap` it names); and `toolroute.schema.json` next to the config. An import whose specifier
 * is computed at run time cannot be found: `docs/security.md` says so.
 *
 * Throws a {@linkcode UsageError} when the graph has more than `maxFiles` local files.
 *
 * Requires `allow-read` permission for the files (what Deno cannot read is left out).
 *
 * @tags allow-read
 * @param options The current directory and the bound.
 * @returns The files and the absent config candidates.
 */
export async function startupFiles(
  config: ToolrouteConfig,
  options: StartupFilesOptions = {},
): Promise<StartupFiles> {
  const maxFiles = options.maxFiles ?? 1_000;
  const files = new Set<string>();
  const candidates = new Set<string>();
  const imports: [string, string][] = [];
  const cwd = options.cwd ?? readableCwd();
  const dirs = new Set<string>([
    ...(cwd === undefined ? [] : [cwd]),
    ...config.modules.map((module) => dirname(module)),
  ]);
  if (config.path !== undefined) {
    files.add(config.path);
    dirs.add(dirname(config.path));
    const schema = join(dirname(config.path), "toolroute.schema.json");
    if (await isFile(schema)) files.add(schema);
    // The tool lock decides which remote tools are served: present or not (one created later
    // would be read at the next start).
    const lock = join(dirname(config.path), LOCK_FILE);
    (await isFile(lock) ? files : candidates).add(lock);
    // The kept tool lists decide how the next start names tools: a tool that could rewrite them
    // could make names move.
    const names = join(dirname(config.path), TOOL_NAMES_FILE);
    (await isFile(names) ? files : candidates).add(names);
  }
  const seenDirs = new Set<string>();
  const visitDir = async (start: string) => {
    for (let dir = start; !seenDirs.has(dir); dir = dirname(dir)) {
      seenDirs.add(dir);
      for (const name of CONFIG_NAMES) {
        const path = join(dir, name);
        if (!(await isFile(path))) {
          if (name !== "deno.lock") candidates.add(path);
          continue;
        }
        files.add(path);
        if (name !== "deno.lock") imports.push(...await importMapOf(path, files));
      }
      if (dir === dirname(dir)) break;
    }
  };
  for (const dir of dirs) await visitDir(dir);
  const queue = [...config.modules];
  const visited = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (visited.has(file)) continue;
    visited.add(file);
    if (!(await isFile(file))) continue;
    files.add(file);
    if (files.size > maxFiles) {
      throw new UsageError(
        `The modules import more than ${maxFiles} local files: serve cannot protect what it runs at its next start; split the modules or import fewer files`,
      );
    }
    await visitDir(dirname(file));
    if (!/\.(?:json|jsonc|wasm)$/i.test(file)) {
      for (const specifier of await specifiersOf(file)) {
        const target = resolveSpecifier(specifier, file, imports);
        if (target !== undefined && CODE.test(target) && !visited.has(target)) queue.push(target);
      }
    }
  }
  for (const file of files) candidates.delete(file);
  const linked: string[] = [];
  for (const file of files) {
    const links = await Deno.stat(file).then((info) => info.nlink ?? 1, () => 1);
    if (links > 1) linked.push(file);
  }
  return { files: [...files].sort(), candidates: [...candidates].sort(), linked: linked.sort() };
}

function readableCwd(): string | undefined {
  try {
    return Deno.cwd();
  } catch {
    return undefined; // Not readable: Deno's own config lookup from there is not seen.
  }
}

async function specifiersOf(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

function resolveSpecifier(
  specifier: string,
  from: string,
  imports: readonly [string, string][],
): string | undefined {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return resolve(dirname(from), specifier.split(/[?#]/)[0]);
  }
  if (specifier.startsWith("file://")) return safeFromFileUrl(specifier);
  if (isAbsolute(specifier)) return resolve(specifier);
  // A bare specifier: the longest import-map entry that maps it to a local path.
  let best: [string, string] | undefined;
  for (const [key, target] of imports) {
    const hit = key.endsWith("/") ? specifier.startsWith(key) : specifier === key;
    if (hit && (best === undefined || key.length > best[0].length)) best = [key, target];
  }
  return best === undefined ? undefined : best[1] + specifier.slice(best[0].length);
}

/** The local targets of a Deno config's `imports` (and of the `importMap` file it names). */
async function importMapOf(path: string, files: Set<string>): Promise<[string, string][]> {
  const value = await readJson(path);
  if (value === undefined) return [];
  const base = dirname(path);
  const entries: [string, string][] = [];
  const add = (imports: unknown, dir: string) => {
    if (imports === null || typeof imports !== "object") return;
    for (const [key, target] of Object.entries(imports as Record<string, unknown>)) {
      if (typeof target !== "string") continue;
      const local = target.startsWith("./") || target.startsWith("../")
        ? resolve(dir, target) + (target.endsWith("/") ? "/" : "")
        : target.startsWith("file://")
        ? safeFromFileUrl(target)
        : isAbsolute(target)
        ? target
        : undefined;
      if (local !== undefined) entries.push([key, local]);
    }
  };
  add(value.imports, base);
  if (typeof value.importMap === "string") {
    const mapPath = resolve(base, value.importMap);
    files.add(mapPath);
    add((await readJson(mapPath))?.imports, dirname(mapPath));
  }
  return entries;
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value = parseJsonc(await Deno.readTextFile(path));
    return value !== null && typeof value === "object"
      ? value as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

function safeFromFileUrl(url: string): string | undefined {
  try {
    return fromFileUrl(url.split(/[?#]/)[0]);
  } catch {
    return undefined;
  }
}
