const known = new Map<string, boolean>();

/**
 * Whether the `bwrap` found on a search path takes `--size` for a tmpfs (bubblewrap 0.7 and
 * later; a setuid bubblewrap refuses it and is not supported by the session anyway). Asked once
 * per search path (`bwrap --help`), then remembered; `false` when it cannot be run, so that the
 * caller's start fails with bubblewrap's own message instead.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param path The `PATH` bubblewrap is found on.
 * @returns Whether `--size` may be passed.
 */
export function bwrapSizeSupported(path: string): boolean {
  let supported = known.get(path);
  if (supported === undefined) {
    try {
      const help = new Deno.Command("bwrap", {
        args: ["--help"],
        env: { PATH: path },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      supported = /^\s*--size\b/m.test(new TextDecoder().decode(help.stdout));
    } catch {
      supported = false;
    }
    known.set(path, supported);
  }
  return supported;
}
