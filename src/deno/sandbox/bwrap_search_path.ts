import { normalize } from "@std/path";
import type { BwrapMount } from "./bwrap_command.ts";
import { within } from "./within.ts";

/**
 * The `PATH` Deno searches for `bwrap` when it spawns the sandbox: the command's `PATH` without
 * relative entries and without entries inside the workspace or a read-only root.
 *
 * Deno looks the program up in the child's `PATH`. A sandboxed command can write the workspace,
 * so with an entry such as `node_modules/.bin` it could plant a fake `bwrap` that a later call
 * would run on the host, unconfined. (Under the exact `--allow-run=bwrap` Deno refuses such a
 * program anyway; this also holds when the host runs with broader permissions.)
 *
 * @param path The command's `PATH`, or `undefined`.
 * @param roots The workspace and read-only roots, declared and real.
 * @returns The `PATH` to spawn bubblewrap with.
 */
export function bwrapSearchPath(path: string | undefined, roots: readonly BwrapMount[]): string {
  const inside = (dir: string) =>
    roots.some(({ source, dest }) =>
      within(normalize(source), dir) || within(normalize(dest), dir)
    );
  return (path ?? "")
    .split(":")
    .filter((dir) => dir.startsWith("/") && !inside(normalize(dir)))
    .join(":");
}

/**
 * The `PATH` bubblewrap (and the host-side tools that start it, `bash`) is looked for on: the
 * host's own (this process's) first, then the command's. A command's `PATH` comes from its config, which may leave out the folder bubblewrap
 * is installed in (a stdio server would then run unconfined as if it were missing) or put a
 * folder of its own first.
 *
 * Requires `allow-env` for `PATH`; without it, the command's `PATH` alone.
 *
 * @param path The command's `PATH`, or `undefined`.
 * @returns The `PATH` to look for bubblewrap on.
 */
export function bwrapHostPath(path: string | undefined): string {
  // Not readable: the command's PATH, as before.
  return [hostEnv("PATH"), path].filter((entry) => entry !== undefined && entry !== "").join(":");
}

/**
 * A variable of this process's environment; `undefined` when it is not set or may not be read
 * (no `allow-env` for it).
 *
 * @returns Its value.
 */
export function hostEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
