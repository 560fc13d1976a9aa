import { quietly } from "./quietly.ts";

/**
 * The pipes of a long-lived command, made on the host before its sandbox starts: a stopped
 * `bash` with its stdin, stdout and stderr piped to this process. The sandbox's launch opens
 * those pipes again through `/proc/<pid>/fd` (`SessionSetup.stdioPid`) and the command takes
 * them over (`spawnInSession`'s `stdio`), so that its bytes flow between the host and the
 * command with nothing in between. `release()` kills the stand-in once the sandbox holds the
 * pipes (or failed to start): the pipes stay, held by this process and the command.
 *
 * Requires `allow-run` permission for `bash`.
 *
 * @tags allow-run
 * @param path The `PATH` bash is found on.
 * @returns The stand-in process and its release.
 */
export function stdioStandIn(path: string): { child: Deno.ChildProcess; release(): void } {
  const child = new Deno.Command("bash", {
    // Stopped, it reads nothing and writes nothing on the pipes it holds.
    args: ["-c", "kill -STOP $$"],
    env: { PATH: path },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return {
    child,
    release: () => quietly(() => child.kill("SIGKILL")),
  };
}
