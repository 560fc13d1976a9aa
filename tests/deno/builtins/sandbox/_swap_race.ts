// What the file-write swap attacks share (`file_write_swap_attack_test.ts` and the second host
// process it starts, `_other_host_swapper_main.ts`): a racer that exchanges a folder with a link
// as fast as it can, a repository as the user's `git init` makes it, and the check that no write
// reached its hooks.

import { assert, assertFalse } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { exists } from "../../../_helpers/exists.ts";

/**
 * Python for a racer: in its working folder, makes the link `link` (to `target`), then exchanges
 * `folder` and the link (renameat2's RENAME_EXCHANGE, atomic) for `seconds` and at least 2,000
 * times, and writes to `swaps.txt` how many times, and why the exchanges that failed failed.
 */
export function swapperScript(
  options: { folder: string; link: string; target: string; seconds: number },
): string {
  return [
    "import ctypes, os, time",
    `os.symlink(${JSON.stringify(options.target)}, ${JSON.stringify(options.link)})`,
    "libc = ctypes.CDLL(None, use_errno=True)",
    "n = 0",
    "errors = {}",
    `end = time.time() + ${options.seconds}`,
    // On a loaded machine the racer may get little of its seconds: it goes on to 2,000 swaps
    // (at most 20 s in all).
    "last = time.time() + 20",
    "while (time.time() < end or n < 2000) and time.time() < last:",
    `    if libc.renameat2(-100, b${JSON.stringify(options.folder)}, -100, b${
      JSON.stringify(options.link)
    }, 2) == 0: n += 1`,
    "    else: e = os.strerror(ctypes.get_errno()); errors[e] = errors.get(e, 0) + 1",
    // Written whole, then renamed into place: the host stops at the name's first sight and
    // kills the racer, which must not leave the count half written.
    'with open("swaps.tmp", "w") as f: f.write(f"{n} {errors}")',
    'os.rename("swaps.tmp", "swaps.txt")',
  ].join("\n");
}

/** The built-in tools of one user, sandboxed, on a workspace. */
export async function sandboxTools(
  workspace: string,
): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({
    builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
  });
  const tools = await router.expose({ builtins: ["bash", "write_file"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

/** A repository as the person at the keyboard makes it (`git init`), with its hooks folder. */
export async function userRepository(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/objects`, { recursive: true });
  await Deno.mkdir(`${dir}/refs/heads`, { recursive: true });
  await Deno.mkdir(`${dir}/hooks`);
  await Deno.writeTextFile(`${dir}/HEAD`, "ref: refs/heads/main\n");
}

/**
 * Writes a hook-named file through the raced folder until the racer is done (its `swaps.txt`),
 * at most 30 s.
 *
 * @returns How many writes were made.
 */
export async function writeUntilSwapped(
  tools: ToolSet,
  options: { path: string; swaps: string },
): Promise<number> {
  let writes = 0;
  const until = performance.now() + 30_000;
  while (performance.now() < until && !await exists(options.swaps)) {
    await tools.call("write_file", { path: options.path, content: "#!/bin/sh\n" });
    writes++;
  }
  return writes;
}

/** The attack ran (many swaps and writes), and no write landed in the repository's hooks. */
export async function assertNoHookWritten(
  workspace: string,
  race: { swaps: string; writes: number },
): Promise<void> {
  assert(
    await exists(race.swaps),
    "the racer wrote no count: it needs Debian's python3 (/usr/bin/python3, with ctypes)",
  );
  // "<count> {<error>: <times>}": what the exchanges that failed failed with.
  const report = await Deno.readTextFile(race.swaps);
  const swaps = Number(report.split(" ")[0]);
  assert(swaps > 1000, `only ${swaps} swaps; failed: ${report.slice(report.indexOf(" ") + 1)}`);
  assert(race.writes > 10, `only ${race.writes} writes`);
  for (const hooks of ["late/.git/hooks", "late/.git.disabled-by-toolroute/hooks"]) {
    assertFalse(
      await exists(`${workspace}/${hooks}/pre-commit`),
      `a write went through the link into ${hooks}`,
    );
  }
}
