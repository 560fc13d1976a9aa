import type { SandboxUse } from "./bwrap_missing.ts";

/**
 * Recognizes a run in which bubblewrap itself failed (it could not create its namespaces or
 * mounts), so that the call fails with the cause instead of passing bubblewrap's error off as
 * the command's output. The one check for every use of bubblewrap.
 *
 * bubblewrap reports its own failures as exit code 1 with a message starting `bwrap: ` on
 * stderr and nothing on stdout. A command could imitate that, but it would only fail its own
 * call.
 *
 * @param run The exit code, standard output and standard error.
 * @param use What the sandbox was for (the message says what did not run).
 * @returns The error message, or `undefined` when the command ran.
 */
export function sandboxFailure(
  run: { readonly exitCode: number; readonly stdout: string; readonly stderr: string },
  use: SandboxUse = "bash",
): string | undefined {
  const { exitCode, stdout, stderr } = run;
  if (exitCode !== 1 || stdout !== "" || !stderr.startsWith("bwrap: ")) return undefined;
  const cause = stderr.split("\n", 1)[0].slice("bwrap: ".length).trim();
  return `The ${use === "bash" ? "bash " : ""}sandbox could not start: bubblewrap failed ` +
    `(${cause}). ${notRun(use)} and ${use === "bash" ? "is" : "are"} never run unconfined ` +
    "instead; check that unprivileged user namespaces are enabled " +
    "(sysctl kernel.unprivileged_userns_clone=1) or that bwrap is installed setuid";
}

function notRun(use: SandboxUse): string {
  return use === "bash" ? "The command did not run" : "Nothing was read, written or run";
}
