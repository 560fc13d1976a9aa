import { basename, dirname, join } from "@std/path";
import type { BwrapMount } from "./bwrap_command.ts";

// Run by bash on the host (as the command probe: the serve process needs no read permission on
// the lockfiles or the host's cache): prints the folder of each npm package a lockfile names
// (`name@version` keys under its "npm", as Deno writes them) that the host's cache ($2) holds
// and the command's own ($1) does not. An empty folder left in its own by an earlier start (a
// mount point) for a package the host's cache no longer holds is removed: Deno would take it
// for the package. $3: the largest lockfile read, in bytes; $4…: the lockfiles.
// The server wrote its own cache and may have written its lockfile (a project in its roots, or
// the repository its author ships): a lockfile is read only when it is a regular file and no
// larger than $3 (a link to /dev/zero, a FIFO or a huge file would keep this host process busy
// for ever, past the server's end), and a package's folder in its own cache only when no part of
// its path is a link (bash runs as the host user: a link planted there would lead this rmdir,
// and the mount's check, to any folder of the host).
const PACKAGES = `own=$1 host=$2 most=$3; shift 3
shopt -s nullglob dotglob; declare -A seen
key='^ {4}"(@?[^@"]+)@([^_"]+)[^"]*": [{]'
linked() {
  local p=$own part parts; [ -L "$p" ] && return 0; IFS=/ read -ra parts <<< "$1"
  for part in "\${parts[@]}"; do p+=/$part; [ -L "$p" ] && return 0; done; return 1
}
for lock in "$@"; do
  [ -f "$lock" ] && [ -r "$lock" ] && [ "$(stat -L -c %s -- "$lock")" -le "$most" ] || continue
  npm=
  while IFS= read -r line; do
    [[ $line == '  "npm": {' ]] && { npm=1; continue; }
    [[ $line == '  "'* ]] && npm=
    [ -n "$npm" ] && [[ $line =~ $key ]] || continue
    n=\${BASH_REMATCH[1]} v=\${BASH_REMATCH[2]}; f="npm/registry.npmjs.org/$n/$v"
    [[ $n == *..* || $v == */* || $v == .* || -n \${seen[$f]} ]] && continue; seen[$f]=1
    linked "$f" && continue
    held=("$own/$f"/*)
    if [ ! -d "$host/$f" ]; then
      [ -d "$own/$f" ] && [ \${#held[@]} = 0 ] && rmdir -- "$own/$f" 2>/dev/null
      continue
    fi
    [ \${#held[@]} = 0 ] && printf '%s\\n' "$f"
  done < <(head -c "$most" -- "$lock")
done
exit 0`;

/**
 * The largest lockfile read (a large project's `deno.lock` is a few hundred KiB); a larger one is
 * left out, its packages then downloaded.
 */
export const LOCKFILE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The npm packages a sandboxed `deno` command may take from the host's Deno cache instead of
 * downloading them: each `name@version` its lockfiles name that the host's cache holds and its
 * own does not, bound read-only at its place in its own cache (a link would not do: Deno
 * resolves it to the host's cache, outside its own, and refuses to load it). The lockfiles are
 * the one `--lock` names, and the `deno.lock` beside its `--config` or in its project folders.
 * What cannot be read is left out (then downloaded, as without the host's cache).
 *
 * Requires `allow-run` permission for `bash`.
 *
 * @tags allow-run
 * @param command The command's arguments and its project folders (`commandNeeds`).
 * @param caches Its own `DENO_DIR` (read-write, where it downloads) and the host's (read-only,
 *   where its packages may already be).
 * @returns The read-only mounts.
 */
export async function denoPackageMounts(
  command: { readonly args: readonly string[]; readonly projects: readonly string[] },
  caches: { readonly own: string; readonly host: string },
): Promise<BwrapMount[]> {
  const locks = lockfiles(command);
  if (locks.length === 0) return [];
  const output = await new Deno.Command("bash", {
    args: [
      "-c",
      PACKAGES,
      "toolroute-packages",
      caches.own,
      caches.host,
      String(LOCKFILE_MAX_BYTES),
      ...locks,
    ],
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
    // A backstop: the reading is bounded by the size checked above.
    signal: AbortSignal.timeout(30_000),
  }).output();
  return new TextDecoder().decode(output.stdout).split("\n")
    .filter((folder) => folder.startsWith("npm/registry.npmjs.org/"))
    .map((folder) => ({ source: join(caches.host, folder), dest: join(caches.own, folder) }));
}

/** The lockfiles a `deno` command uses: `--lock`'s, beside `--config`, in its projects. */
function lockfiles(command: { args: readonly string[]; projects: readonly string[] }): string[] {
  const found: string[] = [];
  const { args } = command;
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const value = inline ?? args[i + 1];
    if (value === undefined || !value.startsWith("/")) continue;
    if (flag === "--lock") found.push(value);
    if (flag === "--config" || flag === "-c") found.push(join(dirname(value), "deno.lock"));
  }
  for (const project of command.projects) found.push(join(project, "deno.lock"));
  return [...new Set(found)];
}

/** Whether a command runs Deno (by its program's name). */
export function runsDeno(command: string): boolean {
  return basename(command).replace(/\.exe$/i, "") === "deno";
}
