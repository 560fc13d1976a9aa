import { basename } from "@std/path";
import { BWRAP_SYSTEM_DIRS } from "./bwrap_command.ts";
import { bwrapHostPath, hostEnv } from "./bwrap_search_path.ts";

/** What a command needs to see read-only to start. */
export interface CommandNeeds {
  /** Host folders (or files) shown read-only at their own paths: program, runtime, caches. */
  readonly readOnly: string[];
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
  // `npm:` imports, and `jsr:` ones (jsr.io's modules, npm.jsr.io's packages).
  deno: ["registry.npmjs.org", "jsr.io", "npm.jsr.io"],
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
 * @returns The host names; none for other programs.
 */
export function launcherRegistries(command: string): string[] {
  return [...REGISTRIES[basename(command).replace(/\.(exe|cmd)$/i, "")] ?? []];
}

// Run by bash on the host (so the serve process itself needs no read permission on PATH, the
// program or the caches): prints `program <path>` for the program found on $CHILD_PATH, and `ro <path>`
// for each path to show read-only. $1: the program; $2: the runtimes, space-separated; $3: the
// system folders, space-separated; $4: the host's home; the rest: the absolute arguments and the
// working directory.
const PROBE = `
main=$1 runtimes=$2 system=$3 hosthome=$4; shift 4
declare -A seen canons
# Sets $c to the path resolved, once per path. A folder is resolved by entering it (cd -P: the
# physical path, as readlink -m gives it, without running a program, a start's cost; bash keeps
# a leading "//", which is "/" here); anything else, or a folder it cannot enter, by readlink.
here=$PWD
canon() {
  c=$1; [ -n "$1" ] || return 0; c=\${canons[$1]-}; [ -n "$c" ] && return
  if [[ -d $1 && $1 == /* ]] && CDPATH= builtin cd -P -- "$1" 2>/dev/null; then
    c=$PWD; [[ $c == //* ]] && c=\${c#/}
    builtin cd -- "$here" 2>/dev/null || builtin cd / || exit 1
  else
    c=$(readlink -m -- "$1" 2>/dev/null)
  fi
  [ -n "$c" ] || c=$1; canons[$1]=$c
}
# Every home the path must not expose, as written and resolved: the command's $HOME (its config
# may set it), the host's, and the user's own from the password database (a config that moves
# $HOME must not unguard the real one).
homes=(); for h in "$HOME" "$hosthome" "$(unset HOME; echo ~)"; do
  [[ $h == /?* ]] && canon "$h" && homes+=("$h" "$c")
done
# A path is too broad when it is /, a home, or above a home, written or resolved: "/home/u/",
# "/home/u/.", "//home/u" and a link to the home are the home.
broad() {
  local p q h; [ -z "$1" ] && return 0
  canon "$1"
  for p in "$1" "$c"; do
    q=\${p%/}; [ -z "$q" ] && return 0
    for h in "\${homes[@]}"; do [ "$q" = "$h" ] || [[ $h == "$q"/* ]] && return 0; done
  done
  return 1
}
# A folder right in a home (~/.local, ~/.cargo): the parent of its bin/ holds more than the
# program (keyrings, shell history, registry tokens), so only bin/ itself is shown.
inhome() {
  local r h; canon "$1"; r=$c
  for h in "\${homes[@]}"; do [ "\${r%/*}" = "$h" ] && return 0; done; return 1
}
add() {
  local d; for d in $system; do [[ $1 == "$d" || $1 == "$d"/* ]] && return; done
  broad "$1" || [ -n "\${seen[ro:$1]}" ] || { seen[ro:$1]=1; echo "ro $1"; }
}
folder() { # adds the install folder: a bin/ folder's parent, else the folder, else the file
  local f=\${1%/*} p; p=$f; [ "\${f##*/}" = bin ] && ! inhome "\${f%/*}" && p=\${f%/*}
  if ! broad "$p"; then add "$p"; elif ! broad "$f"; then add "$f"; else add "$1"; fi
}
program() {
  local found real line words i w
  found=$(PATH=$CHILD_PATH command -v -- "$1" 2>/dev/null) && [[ $found == /* ]] || return 1
  [ -n "\${seen[p:$found]}" ] && return 0; seen[p:$found]=1
  real=$(readlink -f -- "$found" 2>/dev/null)
  [ -n "$main_found" ] || main_found=$found
  folder "$found"; [ -n "$real" ] && folder "$real"
  IFS= read -r -n 256 line < "\${real:-$found}" 2>/dev/null
  if [[ $line == '#!'* ]]; then
    read -r -a words <<< "\${line#??}"; i=\${words[0]}
    if [ "\${i##*/}" = env ]; then for w in "\${words[@]:1}"; do [[ $w == -* ]] || { i=$w; break; }; done; fi
    [ -n "$i" ] && [ "$i" != "$1" ] && program "$i"
  fi
  return 0
}
main_found=
if program "$main"; then echo "program $main_found"; fi
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
for c in "$HOME/.npm" "$HOME/.cache/uv" "$HOME/.cache/pip" "$HOME/.cache/deno"; do
  [ -n "$HOME" ] || [[ $c != /.* ]] || continue
  [ -e "$c" ] && add "$c"
done
# A cache named by a variable (which a config sets, "\${HOME}/.ssh" included) is shown only when
# it holds what such a cache holds: Deno's remote/, npm/, gen/ or deps/; npm's _cacache/.
for m in remote npm gen deps; do [ -n "$DENO_DIR" ] && [ -d "$DENO_DIR/$m" ] && { add "$DENO_DIR"; break; }; done
[ -n "$npm_config_cache" ] && [ -d "$npm_config_cache/_cacache" ] && add "$npm_config_cache"
exit 0`;

/**
 * What a stdio server's command needs read-only inside its sandbox: the program (found on
 * `PATH`, symlinks followed), the install folder of it and of the runtime its script or launcher
 * runs (`node`, `python3`, `uv`: a `bin/` folder's parent, so `lib/` beside it comes along, but
 * not a folder right in the home such as `~/.local`: only its `bin/`), the
 * project of a script it runs (an absolute path among its arguments, or its working directory:
 * the nearest folder above with a `deno.json`, `package.json` or `pyproject.toml`, else the
 * script's folder), and the user's package caches (`~/.npm`, `~/.cache/uv`, `~/.cache/pip`,
 * Deno's cache; one a variable names, `DENO_DIR` or `npm_config_cache`, only when it holds such a
 * cache); never the home folder itself, `/`, or a folder above the home, however written
 * (`home/`, `home/.`, a link to it), whichever home (the command's `HOME`, the host's, the
 * user's own). Looked up by `bash` on the host, so the calling process needs no read permission
 * for any of it.
 *
 * Requires `allow-run` for `bash`.
 *
 * @tags allow-run
 * @param spawn The program, its arguments and working directory.
 * @param env The environment the program gets on the host (`PATH`, `HOME`, `DENO_DIR`).
 * @returns The paths, and the program's.
 */
export async function commandNeeds(
  spawn: { readonly command: string; readonly args: readonly string[]; readonly cwd?: string },
  env: Readonly<Record<string, string>>,
): Promise<CommandNeeds> {
  const name = basename(spawn.command).replace(/\.(exe|cmd)$/i, "");
  const paths = [...spawn.args, ...(spawn.cwd === undefined ? [] : [spawn.cwd])]
    .filter((path) => path.startsWith("/"));
  const probeEnv: Record<string, string> = {};
  for (const key of ["HOME", "DENO_DIR", "npm_config_cache"]) {
    if (env[key] !== undefined) probeEnv[key] = env[key];
  }
  // The program is looked up on the command's PATH; bash and the tools the probe runs on the
  // host's first: a config's PATH without /usr/bin must not stop the probe (or unguard the home).
  probeEnv.CHILD_PATH = env.PATH ?? "";
  probeEnv.PATH = bwrapHostPath(env.PATH);
  const output = await new Deno.Command("bash", {
    args: [
      "-c",
      PROBE,
      "toolroute-needs",
      spawn.command,
      (RUNTIMES[name] ?? []).join(" "),
      BWRAP_SYSTEM_DIRS.join(" "),
      // The serve process's own HOME, guarded besides the command's (which its config may move);
      // not readable: the password database's home is still guarded.
      hostEnv("HOME") ?? "",
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
  return { readOnly, ...(program === undefined ? {} : { program }) };
}
