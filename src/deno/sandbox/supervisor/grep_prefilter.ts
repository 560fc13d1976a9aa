/**
 * Picks, with GNU grep (`xargs -0 grep -lZ -F -a -D skip`: bytes, never a FIFO or device), the
 * files that hold a literal, much faster than opening each file in the supervisor; only those are
 * read then (and checked as any other). Its answer counts only when it ran to its end: else
 * (fewer than 64 files, a literal holding a NUL or newline, grep missing, killed by a command's
 * end, stopped, out of time) `undefined`, and every file is read. A global of the supervisor
 * (`supervisor_script.ts`): self-contained.
 *
 * @param search The folder (`root`), the files relative to it (`paths`) and the `literal`.
 * @param limit The search's time left and stop (see `searchLimits`).
 * @returns The indexes of the files that hold the literal, ascending, or `undefined`.
 */
export async function grepPrefilter(
  search: { root: string; paths: string[]; literal: string },
  limit: { msLeft(): number; onCancel(listener: () => void): () => void },
): Promise<number[] | undefined> {
  const { root, paths, literal } = search;
  if (paths.length < 64 || /[\0\n]/.test(literal)) return undefined;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("xargs", {
      args: ["-0", "grep", "-lZ", "-F", "-a", "-D", "skip", "-e", literal, "--"],
      cwd: root,
      env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined;
  }
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Ended already.
    }
  };
  const timer = setTimeout(kill, limit.msLeft());
  const unlisten = limit.onCancel(kill);
  try {
    const writer = child.stdin.getWriter();
    const fed = writer.write(new TextEncoder().encode(paths.map((path) => `./${path}\0`).join("")))
      .then(() => writer.close()).catch(() => {});
    const [output, status] = await Promise.all([
      new Response(child.stdout).bytes(),
      child.status,
      fed,
    ]);
    // xargs: 0, or 123 when a grep found nothing in its share or could not read a file.
    if (status.signal !== null || (status.code !== 0 && status.code !== 123)) return undefined;
    const index = new Map(paths.map((path, i) => [`./${path}`, i]));
    const found: number[] = [];
    for (const name of new TextDecoder().decode(output).split("\0")) {
      const at = index.get(name);
      if (at !== undefined) found.push(at);
    }
    return found.sort((a, b) => a - b);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    unlisten();
  }
}
