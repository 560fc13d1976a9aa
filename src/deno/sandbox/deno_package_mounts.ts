import { basename, dirname, join } from "@std/path";
import type { BwrapMount } from "./bwrap_command.ts";

/** Where a Deno command's packages are: its own cache and the host's, seen read-only. */
export interface DenoCaches {
  /** The command's own `DENO_DIR` (read-write, where it downloads). */
  readonly own: string;
  /** The host's `DENO_DIR` (read-only, where its packages may already be). */
  readonly host: string;
}

/**
 * The npm packages a sandboxed `deno` command may take from the host's Deno cache instead of
 * downloading them: each `name@version` its lockfiles name that the host's cache holds and its
 * own does not, bound read-only at its place in its own cache (a link would not do: Deno
 * resolves it to the host's cache, outside its own, and refuses to load it). The lockfiles are
 * the one `--lock` names, and the `deno.lock` beside its `--config` or in its project folders.
 * What cannot be read is left out (then downloaded, as without the host's cache).
 *
 * Requires `allow-read` for the lockfiles and the host's cache (else nothing is taken from it).
 *
 * @tags allow-read
 * @param command The command's arguments and its project folders (`commandNeeds`).
 * @param caches Its own and the host's `DENO_DIR`.
 * @returns The read-only mounts.
 */
export async function denoPackageMounts(
  command: { readonly args: readonly string[]; readonly projects: readonly string[] },
  caches: DenoCaches,
): Promise<BwrapMount[]> {
  const mounts: BwrapMount[] = [];
  const seen = new Set<string>();
  for (const lock of lockfiles(command)) {
    let packages: Record<string, unknown>;
    try {
      packages = JSON.parse(await Deno.readTextFile(lock)).npm ?? {};
    } catch {
      continue; // No such lockfile, or not one.
    }
    for (const key of Object.keys(packages)) {
      // "name@1.2.3" or "@scope/name@1.2.3_peer@4.5.6": one folder per version in the cache.
      const at = key.indexOf("@", 1);
      if (at < 0) continue;
      const name = key.slice(0, at);
      const version = key.slice(at + 1).split("_")[0];
      const folder = `npm/registry.npmjs.org/${name}/${version}`;
      if (seen.has(folder) || name.includes("..") || version.includes("/")) continue;
      seen.add(folder);
      const source = join(caches.host, folder);
      const dest = join(caches.own, folder);
      if (!await isFolder(source)) {
        // A mount point an earlier start left, for a package the host no longer holds: Deno
        // would take the empty folder for the package.
        await Deno.remove(dest).catch(() => {});
        continue;
      }
      if (await holds(dest)) continue;
      mounts.push({ source, dest });
    }
  }
  return mounts;
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

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** Whether a folder holds anything (an empty one is a mount point left by an earlier start). */
async function holds(path: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(path)) return true;
  } catch {
    return false;
  }
  return false;
}

/** Whether a command runs Deno (by its program's name). */
export function runsDeno(command: string): boolean {
  return basename(command).replace(/\.exe$/i, "") === "deno";
}
