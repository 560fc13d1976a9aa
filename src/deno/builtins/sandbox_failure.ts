/**
 * Recognizes a run in which bubblewrap itself failed (it could not create its namespaces or
 * mounts), so that the call fails with the cause instead of passing bubblewrap's error off as
 * the command's output.
 *
 * bubblewrap reports its own failures as exit code 1 with a message starting `bwrap: ` on
 * stderr and nothing on stdout. A command could imitate that, but it would only fail its own
 * call.
 *
 * @param exitCode The exit code.
 * @param stdout The standard output.
 * @param stderr The standard error.
 * @returns The error message, or `undefined` when the command ran.
 */
export function sandboxFailure(
  exitCode: number,
  stdout: string,
  stderr: string,
): string | undefined {
  if (exitCode !== 1 || stdout !== "" || !stderr.startsWith("bwrap: ")) return undefined;
  const cause = stderr.split("\n", 1)[0].slice("bwrap: ".length).trim();
  return `The bash sandbox could not start: bubblewrap failed (${cause}). The command did not run ` +
    "and is never run unconfined instead; check that unprivileged user namespaces are enabled " +
    "(sysctl kernel.unprivileged_userns_clone=1) or that bwrap is installed setuid";
}
