// Globals of the supervisor: supervisor_script.ts puts their source before the families.
import { LiteralFinder } from "./literal_finder.ts";
import { starMatch } from "./star_match.ts";
import { onTheWay } from "./on_the_way.ts";
import { grepPrefilter } from "./grep_prefilter.ts";
import { searchFileRead } from "./search_file_read.ts";
import { searchLimits } from "./search_limits.ts";
import type { SupervisorContext, SupervisorOp, SupervisorOps } from "./supervisor_context.ts";

/**
 * The search operations of the sandbox session's supervisor (see `supervisor_script.ts`): `list`
 * walks a tree inside the sandbox and streams its folders and files back; `grep` reads files
 * inside the sandbox and streams back only those that can match. Both stop at their own deadline
 * (`timeoutMs`) and on `stopSearch` (`target`: the search's id), and answer `{ ok: { stopped } }`
 * (`null`, `"deadline"` or `"stopped"`) at the end.
 *
 * `list` (`root`, `start`, `maxDepth`, `gitignore`, `name`, `only`, `parents`): stream 1 frames of
 * NUL-ended records, `d` or `f` then a path relative to `root` (never a symbolic link, never a
 * `.git`), of the folders the host's walk enters (all below `start`, or only those on the way to
 * `only`, it and those below it); with `gitignore`, a stream 2 frame per `.gitignore` file (of a
 * listed folder or of one of `parents`): its folder, a NUL, its text.
 *
 * `grep` (`root`, `maxBytes`, `roundBytes`, `literal`; the body: NUL-separated paths relative to
 * `root`): stream 1 frames of entries, each a 4-byte index into the paths, a 4-byte length and
 * the file's bytes, for the regular files of at most `maxBytes` without a NUL byte that contain
 * the literal (every such file without one). Once it has sent `roundBytes`, it ends the round:
 * `{ ok: { stopped, more } }`, `more` the number of paths it went through (the host asks again
 * for the rest once it has matched these), else `null`. The pattern itself is matched on the
 * host, never here. Given a literal and many files, GNU grep (when the sandbox has it) first
 * picks the files holding it (`grep_prefilter.ts`).
 *
 * Stream frames are sent with `hold`: a small answer reaches the host in one write with its end.
 */

/**
 * The search operations. Self-contained but for the supervisor's globals `LiteralFinder`,
 * `starMatch`, `searchLimits`, `searchFileRead` and `grepPrefilter`: its source text runs inside
 * the sandbox.
 *
 * @param context The supervisor's shared context.
 */
export function searchOps(context: SupervisorContext): SupervisorOps {
  const { send } = context;
  const encoder = new TextEncoder();
  // The running searches' stop functions, by request id.
  const running = new Map<number, () => void>();
  // Stream frames carry at most this much, so the host never holds much of a reply at once.
  const BATCH = 256 * 1024;

  const limits = (request: Record<string, unknown>) => searchLimits(running, request);
  const isGit = (name: string) =>
    name.length >= 4 && name.charCodeAt(0) === 0x2e &&
    name.toLowerCase().replace(/[. ]+$/, "") === ".git";

  const list: SupervisorOp<"list"> = async (request) => {
    const id = Number(request.id);
    const root = String(request.root);
    const start = String(request.start);
    const maxDepth = request.maxDepth === null ? Infinity : Number(request.maxDepth);
    const gitignore = request.gitignore === true;
    // The name filter, `*` and literals, matched by its parts (linear: never a backtracking
    // expression).
    const parts = typeof request.name === "string" && request.name !== ""
      ? request.name.split("*")
      : undefined;
    const nameMatches = (entry: string) => parts === undefined || starMatch(parts, entry);
    const at = (dir: string) => dir === "" ? root : `${root}/${dir}`;
    // Only the folders the host's walk enters (`walkTree`'s `only`, "" for all).
    const only = typeof request.only === "string" ? request.only : "";
    const { release, stop } = limits(request);
    let records: string[] = [];
    let size = 0;
    const flush = async () => {
      if (records.length === 0) return;
      const bytes = encoder.encode(records.join(""));
      records = [];
      size = 0;
      await send({ id, stream: 1 }, bytes, true);
    };
    let buffer: Uint8Array | undefined;
    const sendIgnore = async (dir: string) => {
      const text = searchFileRead(`${at(dir)}/.gitignore`, {
        max: 1 << 20,
        buffer: buffer ??= new Uint8Array(64 * 1024),
        lstatFirst: true,
      });
      if (text === undefined) return;
      const name = encoder.encode(dir);
      const body = new Uint8Array(name.length + 1 + text.length);
      body.set(name);
      body.set(text, name.length + 1);
      await send({ id, stream: 2 }, body, true);
    };
    let stopped: string | undefined;
    // Depth-first, the folders to visit on a stack: no await per folder (only when `stop`
    // yields), so that a small listing ends within the few ticks after which the supervisor's
    // main loop would read its input through the thread pool.
    const walk = async () => {
      const stack: Array<[string, number]> = [[start, 1]];
      while (stack.length > 0) {
        const check = stop();
        stopped = check instanceof Promise ? await check : check;
        if (stopped !== undefined) return;
        const [dir, depth] = stack.pop()!;
        let entries: Deno.DirEntry[];
        try {
          entries = [...Deno.readDirSync(at(dir))];
        } catch {
          continue;
        }
        const below = stack.length;
        for (const entry of entries) {
          if (entry.isSymlink || isGit(entry.name)) continue;
          const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
          if (entry.isDirectory) {
            records.push(`d${path}\0`);
            if (depth < maxDepth && onTheWay(only, path)) stack.push([path, depth + 1]);
          } else if (entry.isFile) {
            if (gitignore && entry.name === ".gitignore") await sendIgnore(dir);
            if (!nameMatches(entry.name)) continue;
            records.push(`f${path}\0`);
          } else continue;
          size += path.length + 2;
          // Within the folder too: one folder of a few thousand long paths made a frame over
          // the host's limit (MAX_FRAME_BODY), and the host ended the whole session.
          if (size >= BATCH) await flush();
        }
        // This folder's subfolders are visited in the order listed (the first on top): reversed
        // in place, not spread into `push`, which throws past about 120,000 of them.
        for (let i = below, j = stack.length - 1; i < j; i++, j--) {
          const swap = stack[i];
          stack[i] = stack[j];
          stack[j] = swap;
        }
      }
    };
    try {
      if (gitignore && Array.isArray(request.parents)) {
        for (const parent of request.parents) await sendIgnore(String(parent));
      }
      // The start itself must be a folder, not a symbolic link to one.
      if (Deno.lstatSync(at(start)).isDirectory) await walk();
      await flush();
    } finally {
      release();
    }
    return await send({ id, ok: { stopped: stopped ?? null } });
  };

  const grep: SupervisorOp<"grep"> = async (request, body) => {
    const id = Number(request.id);
    const root = String(request.root);
    const max = Number(request.maxBytes);
    const paths = body.length === 0 ? [] : new TextDecoder().decode(body).split("\0");
    const finder = typeof request.literal === "string" && request.literal !== ""
      ? new LiteralFinder(encoder.encode(request.literal))
      : undefined;
    const roundBytes = Number(request.roundBytes);
    let sent = 0;
    let more: number | null = null;
    const buffer = new Uint8Array(64 * 1024);
    const limit = limits(request);
    const { release, stop } = limit;
    let batch: Uint8Array[] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const all = new Uint8Array(size);
      let at = 0;
      for (const part of batch) {
        all.set(part, at);
        at += part.length;
      }
      batch = [];
      size = 0;
      await send({ id, stream: 1 }, all, true);
    };
    let stopped: string | undefined;
    const pauseFinder = async () => {
      const check = stop();
      stopped = check instanceof Promise ? await check : check;
      return stopped !== undefined;
    };
    // The regular files of the folder being read, listed again just before its files are
    // opened: a file swapped since the listing for a symbolic link, FIFO or device is passed over.
    let folder: string | undefined;
    let regular = new Set<string>();
    try {
      const picked = finder === undefined
        ? undefined
        : await grepPrefilter({ root, paths, literal: String(request.literal) }, limit);
      const count = picked?.length ?? paths.length;
      for (let at = 0; at < count; at++) {
        const index = picked === undefined ? at : picked[at];
        const check = stop(); // awaited only when it yields: most files cost no await
        stopped = check instanceof Promise ? await check : check;
        if (stopped !== undefined) break;
        const path = paths[index];
        const slash = path.lastIndexOf("/");
        const dir = slash < 0 ? "" : path.slice(0, slash);
        if (dir !== folder) {
          folder = dir;
          regular = new Set();
          try {
            for (const entry of Deno.readDirSync(dir === "" ? root : `${root}/${dir}`)) {
              if (entry.isFile) regular.add(entry.name);
            }
          } catch {
            // Gone: its files are passed over.
          }
        }
        if (!regular.has(path.slice(slash + 1))) continue;
        const data = searchFileRead(`${root}/${path}`, { max, buffer });
        if (data === undefined) continue;
        // A window at a time, the event loop running between (a stop or deadline gives up).
        if (finder !== undefined && !await finder.containsPaused(data, pauseFinder)) continue;
        if (data.includes(0)) continue;
        if (size + data.length + 8 > BATCH) await flush();
        const head = new Uint8Array(8);
        new DataView(head.buffer).setUint32(0, index);
        new DataView(head.buffer).setUint32(4, data.length);
        batch.push(head, data.buffer === buffer.buffer ? data.slice() : data);
        size += 8 + data.length;
        sent += data.length;
        if (sent >= roundBytes && index + 1 < paths.length) {
          more = index + 1;
          break;
        }
      }
      await flush();
    } finally {
      release();
    }
    return await send({ id, ok: { stopped: stopped ?? null, more } });
  };

  return {
    list,
    grep,
    stopSearch: (request) => {
      running.get(Number(request.target))?.();
      return send({ id: request.id, ok: {} });
    },
  };
}
