import { basename, dirname, isAbsolute, join, SEPARATOR } from "@std/path";
import { BWRAP_SYSTEM_DIRS } from "./bwrap_command.ts";

/** What a command needs to see read-only to start, and the hosts its first start downloads from. */
export interface CommandNeeds {
  /** Host directories (or files) shown read-only at their own paths: program, runtime, caches. */
  readonly readOnly: string[];
  /** Package registries the command downloads from on its first start (`npx -y`, `uvx`). */
  readonly registries: string[];
  /** Where the program is on the host; `undefined` when it is not found. */
  readonly program?: string;
}

// Launchers that install a package on first start, and the registry hosts they need then: the
// package is not on the machine before the first start, so a sandbox without these hosts could
// never start the server at all.
const REGISTRIES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  npx: ["registry.npmjs.org"],
  npm: ["registry.npmjs.org"],
  pnpm: ["registry.npmjs.org"],
  bunx: ["registry.npmjs.org"],
  uvx: ["pypi.org", "files.pythonhosted.org"],
  uv: ["pypi.org", "files.pythonhosted.org"],
  pipx: ["pypi.org", "files.pythonhosted.org"],
});

// The interpreters a launcher runs, besides the one its script names.
const RUNTIMES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  npx: ["node"],
  npm: ["node"],
  pnpm: ["node"],
  uvx: ["uv", "python3"],
  pipx: ["python3"],
});

/**
 * What a stdio server's command needs read-only inside its sandbox: the program (found on
 * `PATH`, symlinks followed), the install folder of it and of the runtime its script or launcher
 * runs (`node`, `python3`, `uv`: a `bin/` folder's parent, so `lib/` beside it comes along), and
 * the package caches of the user (`~/.npm`, `~/.cache/uv`, `~/.cache/pip`, Deno's cache), never
 * the home folder itself; the project of a script it runs (an absolute path among its arguments,
 * or its working directory: the nearest folder above with a `deno.json`, `package.json` or
 * `pyproject.toml`, else the script's folder; never the home folder or `/`); and the
 * registries an installing launcher needs.
 *
 * Requires `allow-read` for the `PATH` folders and the program.
 *
 * @tags allow-read
 * @param spawn The program, its arguments and working directory.
 * @param env The environment the program gets on the host (`PATH`, `HOME`, `DENO_DIR`).
 * @returns The paths and registries.
 */
export function commandNeeds(
  spawn: { readonly command: string; readonly args: readonly string[]; readonly cwd?: string },
  env: Readonly<Record<string, string>>,
): CommandNeeds {
  const command = spawn.command;
  const home = env.HOME;
  const seen = new Set<string>();
  const readOnly: string[] = [];
  const add = (path: string | undefined) => {
    if (path === undefined || seen.has(path) || systemPath(path) || tooBroad(path, home)) return;
    seen.add(path);
    readOnly.push(path);
  };
  const program = (name: string) => {
    const found = onPath(name, env.PATH);
    if (found === undefined) return;
    for (const path of [found, realPath(found)]) {
      if (path === undefined) continue;
      add(installFolder(path, home));
    }
    const interpreter = shebang(realPath(found) ?? found);
    if (interpreter !== undefined && interpreter !== name) program(interpreter);
  };
  const name = basename(command).replace(/\.(exe|cmd)$/i, "");
  const found = onPath(command, env.PATH);
  program(command);
  for (const runtime of RUNTIMES[name] ?? []) program(runtime);
  if (home !== undefined) {
    for (const cache of [".npm", ".cache/uv", ".cache/pip", ".cache/deno"]) add(join(home, cache));
  }
  for (const path of [...spawn.args, ...(spawn.cwd === undefined ? [] : [spawn.cwd])]) {
    if (!isAbsolute(path)) continue;
    const project = projectOf(path, home);
    if (project !== undefined) add(project);
  }
  add(env.DENO_DIR);
  add(env.npm_config_cache);
  return {
    readOnly,
    registries: [...REGISTRIES[name] ?? []],
    ...(found === undefined ? {} : { program: found }),
  };
}

const PROJECT_FILES = ["deno.json", "deno.jsonc", "package.json", "pyproject.toml"];

// The project a script or folder belongs to: the nearest folder at or above it holding a
// project file, below the home folder; else the script's own folder (or the folder itself).
function projectOf(path: string, home: string | undefined): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return undefined;
  }
  const start = info.isDirectory ? path : dirname(path);
  for (let dir = start; !tooBroad(dir, home); dir = dirname(dir)) {
    if (PROJECT_FILES.some((name) => exists(join(dir, name)))) return dir;
  }
  return tooBroad(start, home) ? undefined : start;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function systemPath(path: string): boolean {
  return BWRAP_SYSTEM_DIRS.some((dir) => path === dir || path.startsWith(dir + SEPARATOR));
}

// The home folder, `/` or a folder above the home: never shown whole.
function tooBroad(path: string, home: string | undefined): boolean {
  if (path === "/" || !isAbsolute(path)) return true;
  return home !== undefined && (home === path || home.startsWith(path + SEPARATOR));
}

/** A program's install folder: the parent of its `bin/`, else its own folder; the file itself
 * when that folder would be too broad (a program in `~/bin` or `~`). */
function installFolder(path: string, home: string | undefined): string {
  const folder = dirname(path);
  const prefix = basename(folder) === "bin" ? dirname(folder) : folder;
  if (!tooBroad(prefix, home)) return prefix;
  return tooBroad(folder, home) ? path : folder;
}

function onPath(name: string, path: string | undefined): string | undefined {
  if (name.includes("/")) return isAbsolute(name) && exists(name) ? name : undefined;
  for (const dir of (path ?? "").split(":")) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // Not there, or not readable: the next folder.
    }
  }
  return undefined;
}

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

// The interpreter a script names (`#!/usr/bin/env node` gives `node`, `#!/opt/py/bin/python3`
// that path).
function shebang(path: string): string | undefined {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path);
    const head = new Uint8Array(256);
    const count = file.readSync(head) ?? 0;
    const line = new TextDecoder().decode(head.subarray(0, count)).split("\n")[0];
    if (!line.startsWith("#!")) return undefined;
    const words = line.slice(2).trim().split(/\s+/);
    if (basename(words[0]) === "env") return words.slice(1).find((word) => !word.startsWith("-"));
    return words[0];
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}
