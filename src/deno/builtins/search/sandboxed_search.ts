import { dirname } from "@std/path";
import type { ResolvedContext } from "../builtin_context.ts";
import { assertFileSandboxRan, spawnInFileSandbox } from "./_search_sandbox.ts";
import { ListedTree } from "./listed_tree.ts";
import type { SearchBudget } from "./search_budget.ts";
import { readTar } from "./tar_reader.ts";
import type { TreeView } from "./walk_tree.ts";

// Lists the folders and regular files under $2 (relative to the root $1), never following a
// symbolic link and never entering .git; then an empty record; then a tar of the .gitignore
// files (those below $2, and those of the parent folders named after $4) when $4 is "1".
const LIST_SCRIPT = `
export LC_ALL=C PATH=/usr/bin:/bin
cd -- "$1" || exit 4
start=$2 depth=$3 ignores=$4 name=$5
shift 5
limit=() names=()
[ "$depth" = - ] || limit=(-maxdepth "$depth")
[ -z "$name" ] || names=(-name "$name")
find -P "$start" -mindepth 1 "\${limit[@]}" -iname .git -prune -o \\
  -type d -printf 'd%p\\0' -o -type f "\${names[@]}" -printf 'f%s/%p\\0'
printf '\\0'
[ "$ignores" = 1 ] || exit 0
{
  find -P "$start" "\${limit[@]}" -iname .git -prune -o -name .gitignore -type f -size -1025k -print0
  for dir in "$@"; do [ -f "$dir/.gitignore" ] && printf '%s\\0' "$dir/.gitignore"; done
} | tar --format=gnu --null --no-recursion -T - -cf -
`;

// Archives the regular files named on stdin (NUL-separated, "./"-prefixed, relative to the root
// $1) of at most $2 bytes, and when $3 is given only those containing that fixed string (bytes).
// find -P never follows a symbolic link; tar never follows a final one and records a FIFO or
// device (swapped in since) without opening it.
const READ_SCRIPT = `
export LC_ALL=C PATH=/usr/bin:/bin
cd -- "$1" || exit 4
filter() { if [ -n "$1" ]; then xargs -0 grep -lZ -F -a -e "$1" -- 2>/dev/null; else cat; fi; }
xargs -0 sh -c 'exec find -P "$@" -maxdepth 0 -type f -size -"$0"c -print0 2>/dev/null' "$(($2 + 1))" |
  filter "$3" | tar --format=gnu --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null
`;

/**
 * Lists a tree inside the file sandbox (the mounts of the sandboxed bash tool), so that a symbolic
 * link swapped in by a sandboxed command can only lead to what that command could read anyway.
 * One `bwrap` start lists the folders and files below `start` and returns the `.gitignore` files
 * the walk needs. This and {@linkcode readInSandbox} are the search's only sandboxed steps.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param ctx The request's context (bash sandboxed).
 * @param root The declared root of the search.
 * @param options Where to start (relative to the root), how deep, whether `.gitignore` applies.
 * @returns The tree, as a view for the walk.
 */
export async function listInSandbox(
  ctx: ResolvedContext,
  root: string,
  options: {
    start: string;
    maxDepth?: number;
    gitignore: boolean;
    budget: SearchBudget;
    /** Only files with a name matching this `find -name` pattern are listed. */
    name?: string;
  },
): Promise<TreeView> {
  const parents: string[] = [];
  const parts = options.start === "" ? [] : options.start.split("/");
  for (let i = 0; i < parts.length; i++) parents.push(parts.slice(0, i).join("/") || ".");
  const args = [
    root,
    options.start || ".",
    options.maxDepth === undefined ? "-" : String(options.maxDepth),
    options.gitignore ? "1" : "0",
    options.name ?? "",
    ...parents,
  ];
  options.budget.check();
  const child = await spawnInFileSandbox(ctx, LIST_SCRIPT, args, "null");
  const [status, bytes, stderr] = await bounded(child, options.budget, () =>
    Promise.all([
      child.status,
      new Response(child.stdout).bytes(),
      new Response(child.stderr).text(),
    ]));
  assertFileSandboxRan(status.code, bytes.length === 0 ? "" : "-", stderr);
  const tree = new ListedTree();
  const end = bytes[0] === 0 ? 0 : findEnd(bytes);
  const decoder = new TextDecoder();
  // One decoding for the whole listing: NUL never occurs inside a UTF-8 character.
  for (const record of decoder.decode(bytes.subarray(0, end)).split("\0")) {
    if (record[0] === "d") tree.add(relative(record.slice(1)), "dir");
    else if (record[0] === "f") {
      const slash = record.indexOf("/");
      tree.add(relative(record.slice(slash + 1)), "file", Number(record.slice(1, slash)));
    }
  }
  if (options.gitignore && end < bytes.length) {
    const tar = new Blob([bytes.subarray(end + 1)]).stream();
    for await (const entry of readTar(tar, 1024 * 1024)) {
      if (entry.data === undefined || !entry.name.endsWith(".gitignore")) continue;
      const dir = dirname(entry.name);
      tree.gitignores.set(dir === "." ? "" : dir, decoder.decode(entry.data));
    }
  }
  return tree;
}

/**
 * Reads regular files inside the file sandbox (see {@linkcode listInSandbox}), streaming them to
 * `onFile` in the order given until it returns `true`; the sandbox is stopped then, at the
 * budget's deadline, or when the call is aborted. A file that is gone, has become something other
 * than a regular file, or is larger than `maxBytes` is left out.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param ctx The request's context (bash sandboxed).
 * @param root The declared root of the files.
 * @param options The files (relative to the root), the largest content, the budget.
 * @param onFile Receives each file's path and content; returns `true` to stop.
 */
export async function readInSandbox(
  ctx: ResolvedContext,
  root: string,
  options: {
    files: readonly string[];
    maxBytes: number;
    budget: SearchBudget;
    literal?: Uint8Array;
  },
  onFile: (path: string, data: Uint8Array | undefined) => boolean | void,
): Promise<void> {
  if (options.files.length === 0) return;
  const literal = options.literal === undefined || options.literal.includes(10) ||
      options.literal.includes(0)
    ? ""
    : new TextDecoder().decode(options.literal);
  const args = [root, String(options.maxBytes), literal];
  options.budget.check();
  const child = await spawnInFileSandbox(ctx, READ_SCRIPT, args, "piped");
  const list = new TextEncoder().encode(options.files.map((file) => `./${file}\0`).join(""));
  const writer = child.stdin.getWriter();
  const fed = writer.write(list).then(() => writer.close()).catch(() => {});
  const stderr = new Response(child.stderr).text();
  await bounded(child, options.budget, async () => {
    for await (const entry of readTar(child.stdout, options.maxBytes)) {
      await options.budget.tick();
      if (onFile(entry.name, entry.kind === "file" ? entry.data : undefined) === true) break;
    }
  });
  kill(child);
  const [status, errors] = await Promise.all([child.status, stderr, fed]);
  assertFileSandboxRan(status.code, "", errors);
}

/**
 * bubblewrap killed while it is still setting up can leave its inner process behind holding the
 * output pipe; it is never killed in its first 100 ms (its setup takes a few), so a deadline that
 * short ends the search a little late rather than leaking a process.
 */
const SETUP_MS = 100;

/**
 * Runs `work` on a sandboxed child, killing the child at the deadline or on abort; never waits for
 * the child's output after that (a stuck process must not hang the call).
 */
async function bounded<T>(
  child: Deno.ChildProcess,
  budget: SearchBudget,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => stop = reject);
  stopped.catch(() => {});
  let ending: ReturnType<typeof setTimeout> | undefined;
  const end = (reason: () => unknown) => {
    const wait = Math.max(0, SETUP_MS - (performance.now() - started));
    ending ??= setTimeout(() => {
      kill(child);
      stop(reason());
    }, wait);
  };
  const timer = setTimeout(() => end(() => budget.timeout()), budget.msLeft);
  const onAbort = () => end(() => budget.signal.reason);
  budget.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await Promise.race([work(), stopped]);
    budget.check();
    return result;
  } catch (error) {
    kill(child);
    throw error;
  } finally {
    clearTimeout(timer);
    clearTimeout(ending);
    budget.signal.removeEventListener("abort", onAbort);
  }
}

function kill(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // It ended already.
  }
}

/** A path as find prints it, without its leading `./`. */
function relative(path: string): string {
  return path.startsWith("./") ? path.slice(2) : path;
}

/** The index of the empty record ending the listing: the first NUL right after a NUL. */
function findEnd(bytes: Uint8Array): number {
  for (let at = bytes.indexOf(0); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(0, at + 1)) {
    if (bytes[at + 1] === 0) return at + 1;
  }
  return bytes.length;
}
