// What the planted-repository attack tests share: the host's own git, run where a user would run
// it.

/** Runs the host's own `git status` in a folder, with no user or system config of the host. */
export async function hostGitStatus(cwd: string, home: string): Promise<void> {
  await new Deno.Command("git", {
    args: ["status"],
    cwd,
    clearEnv: true,
    env: { HOME: home, GIT_CONFIG_NOSYSTEM: "1", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdout: "null",
    stderr: "null",
  }).output();
}
