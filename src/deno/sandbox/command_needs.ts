import { basename } from "@std/path";
import { BWRAP_SYSTEM_DIRS } from "./bwrap_command.ts";

/** What a command needs to see read-only to start, and the hosts its first start downloads from. */
export interface CommandNeeds {
  /** Host folders (or files) shown read-only at their own paths: program, runtime, caches. */
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
 * The registries an installing launcher (`npx`, `uvx`, …) downloads from on its first start.
 *
 * @param command The program.
 * @returns The host names; none for other programs.
 */
export function launcherRegistries(command: string): string[] {
  return [...REGISTRIES[basename(command).replace(/\.(exe|cmd)$/i, "")] ?? []];
}

// Run by bash on the host (so the serve process itself needs no read permission on PATH, the
// program or the caches): prints `program <path>` for the program found on PATH, and `ro <path>`
// for each path to show read-only. $1: the program; $2: the runtimes, space-separated; $3: the
// system folders, space-separated; the rest: the absolute arguments and the working directory.
const PROBE = `
main=$1 runtimes=$2 system=$3; shift 3
declare -A seen
broad() { [ "$1" = / ] || [ -z "$1" ] || { [ -n "$HOME" ] && { [ "$1" = "$HOME" ] || [[ $HOME == "$1"/* ]]; }; }; }
add() {
  local d; for d in $system; do [[ $1 == "$d" || $1 == "$d"/* ]] && return; done
  broad "$1" || [ -n "\${seen[ro:$1]}" ] || { seen[ro:$1]=1; echo "ro $1"; }
}
folder() { # the install folder: a bin/ folder's parent, else the folder, else the file
  local f=\${1%/*} p; p=$f; [ "\${f##*/}" = bin ] && p=\${f%/*}
  if ! broad "$p"; then echo "$p"; elif ! broad "$f"; then echo "$f"; else echo "$1"; fi
}
program() {
  local found real line words i w
  found=$(command -v -- "$1" 2>/dev/null) && [[ $found == /* ]] || return 1
  [ -n "\${seen[p:$found]}" ] && return 0; seen[p:$found]=1
  real=$(readlink -f -- "$found" 2>/dev/null)
  add "$(folder "$found")"; [ -n "$real" ] && add "$(folder "$real")"
  IFS= read -r -n 256 line < "\${real:-$found}" 2>/dev/null
  if [[ $line == '#!'* ]]; then
    read -r -a words <<< "\${line#??}"; i=\${words[0]}
    if [ "\${i##*/}" = env ]; then for w in "\${words[@]:1}"; do [[ $w == -* ]] || { i=$w; break; }; done; fi
    [ -n "$i" ] && [ "$i" != "$1" ] && program "$i"
  fi
  return 0
}
if program "$main"; then echo "program $(command -v -- "$main")"; fi
for r in $runtimes; do program "$r"; done
for p in "$@"; do # the project of a script or folder: the nearest folder with a project file
  [ -e "$p" ] || continue; [ -d "$p" ] || p=\${p%/*}; start=$p
  while ! broad "$p"; do
    for f in deno.json deno.jsonc package.json pyproject.toml; do
      [ -e "$p/$f" ] && { add "$p"; continue 3; }
    done
    p=\${p%/*}
  done
  add "$start"
done
for c in "$HOME/.npm" "$HOME/.cache/uv" "$HOME/.cache/pip" "$HOME/.cache/deno" "$DENO_DIR" "$npm_config_cache"; do
  [ -n "$HOME" ] || [[ $c != /.* ]] || continue
  [ -e "$c" ] && add "$c"
done
exit 0`;

/**
 * What a stdio server's command needs read-only inside its sandbox: the program (found on
 * `PATH`, symlinks followed), the install folder of it and of the runtime its script or launcher
 * runs (`node`, `python3`, `uv`: a `bin/` folder's parent, so `lib/` beside it comes along), the
 * project of a script it runs (an absolute path among its arguments, or its working directory:
 * the nearest folder above with a `deno.json`, `package.json` or `pyproject.toml`, else the
 * script's folder), and the user's package caches (`~/.npm`, `~/.cache/uv`, `~/.cache/pip`,
 * Deno's cache); never the home folder itself, `/`, or a folder above the home; and the
 * registries an installing launcher needs. Looked up by `bash` on the host, so the calling
 * process needs no read permission for any of it.
 *
 * Requires `allow-run` for `bash`.
 *
 * @tags allow-run
 * @param spawn The program, its arguments and working directory.
 * @param env The environment the program gets on the host (`PATH`, `HOME`, `DENO_DIR`).
 * @returns The paths and registries.
 */
export async function commandNeeds(
  spawn: { readonly command: string; readonly args: readonly string[]; readonly cwd?: string },
  env: Readonly<Record<string, string>>,
): Promise<CommandNeeds> {
  const name = basename(spawn.command).replace(/\.(exe|cmd)$/i, "");
  const paths = [...spawn.args, ...(spawn.cwd === undefined ? [] : [spawn.cwd])]
    .filter((path) => path.startsWith("/"));
  const probeEnv: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "DENO_DIR", "npm_config_cache"]) {
    if (env[key] !== undefined) probeEnv[key] = env[key];
  }
  const output = await new Deno.Command("bash", {
    args: [
      "-c",
      PROBE,
      "toolroute-needs",
      spawn.command,
      (RUNTIMES[name] ?? []).join(" "),
      BWRAP_SYSTEM_DIRS.join(" "),
      ...paths,
    ],
    env: probeEnv,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const lines = new TextDecoder().decode(output.stdout).split("\n");
  const readOnly = lines.filter((line) => line.startsWith("ro /")).map((line) => line.slice(3));
  const program = lines.find((line) => line.startsWith("program /"))?.slice(8);
  return {
    readOnly,
    registries: launcherRegistries(spawn.command),
    ...(program === undefined ? {} : { program }),
  };
}
