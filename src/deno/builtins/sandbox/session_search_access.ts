import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { ListedTree } from "../search/listed_tree.ts";
import {
  type ListRequest,
  MAX_SEARCH_BYTES,
  type OnFile,
  type ReadRequest,
  type SearchAccess,
} from "../search/search_access.ts";
import type { SearchBudget } from "../search/search_budget.ts";
import { onlyFolder } from "../search/walk_tree.ts";
import type { SessionSource } from "./sandbox_sessions.ts";
import type { OkOf, RequestOf } from "../../sandbox/protocol.ts";

/** The most bytes of listing one search takes in (64 MiB: about a million paths). */
const MAX_LISTING_BYTES = 64 << 20;
/** How long past a search's deadline the supervisor may take to stop before its session ends. */
const GRACE_MS = 5000;
/**
 * The bytes of files one round of `read` takes in (32 MiB) before the supervisor pauses: the host
 * then matches them (with pauses of its own) and asks for the next round, so that it never holds
 * more than a round and a file.
 */
const ROUND_BYTES = 32 << 20;
const READ_ONLY = Object.freeze({ reading: true });

/**
 * The searches' access of a context whose bash is sandboxed: the walk and the reads run in the
 * context's sandbox session (the supervisor's `list` and `grep` operations, see
 * `supervisor/search_ops.ts`), so a folder swapped for a symbolic link by a sandboxed command leads
 * only to what that command could read anyway. Only the text files that can match (holding the
 * literal, when there is one) cross the pipe, in batches, a round of at most `ROUND_BYTES` at a
 * time; the pattern itself is matched on the host. Every answer is validated; a supervisor that
 * lies ends its session.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 */
export function sessionSearchAccess(ctx: ResolvedContext, sessions: SessionSource): SearchAccess {
  return Object.freeze({
    async list(root: string, request: ListRequest) {
      const tree = new ListedTree();
      const decoder = new TextDecoder();
      const prefix = request.start === "" ? "" : `${request.start}/`;
      const parts = request.start === "" ? [] : request.start.split("/");
      let bytes = 0;
      const { stop } = await ask(
        ctx,
        sessions,
        request.budget,
        {
          op: "list",
          root,
          start: request.start,
          maxDepth: request.maxDepth ?? null,
          gitignore: request.gitignore,
          name: request.name ?? "",
          only: onlyFolder(request),
          parents: parts.map((_, i) => parts.slice(0, i).join("/")),
        },
        undefined,
        (stream, body, fail) => {
          bytes += body.length;
          if (bytes > MAX_LISTING_BYTES) return "too big";
          const text = decoder.decode(body);
          if (stream === 2) {
            const nul = text.indexOf("\0");
            const dir = text.slice(0, nul);
            const parent = dir === "" || request.start === dir || prefix.startsWith(`${dir}/`);
            if (nul < 0 || !(parent || isBelow(dir, prefix))) throw fail("a .gitignore elsewhere");
            tree.gitignores.set(dir, text.slice(nul + 1));
            return;
          }
          if (!text.endsWith("\0")) throw fail("a listing record without its end");
          for (const record of text.slice(0, -1).split("\0")) {
            const kind = record[0] === "d" ? "dir" : record[0] === "f" ? "file" : undefined;
            const path = record.slice(1);
            if (kind === undefined || !isBelow(path, prefix)) throw fail("a listing record");
            tree.add(path, kind);
          }
        },
      );
      if (stop === "too big") {
        throw new ToolError(
          "tool_error",
          `The search lists more than ${MAX_LISTING_BYTES} bytes of paths: narrow it with "path"`,
        );
      }
      return tree;
    },
    async read(root: string, request: ReadRequest, onFile: OnFile): Promise<void> {
      const literal = request.literal === undefined
        ? undefined
        : new TextDecoder().decode(request.literal);
      // Rounds: the files from `offset` on, until the supervisor has sent ROUND_BYTES of them.
      for (let offset = 0; offset < request.files.length;) {
        const files = request.files.slice(offset);
        const body = new TextEncoder().encode(files.join("\0"));
        const round: [number, Uint8Array][] = [];
        let next = 0;
        let bytes = 0;
        const { stop, ok } = await ask(
          ctx,
          sessions,
          request.budget,
          {
            op: "grep",
            root,
            maxBytes: MAX_SEARCH_BYTES,
            roundBytes: ROUND_BYTES,
            ...(literal === undefined ? {} : { literal }),
          },
          body,
          (_stream, batch, fail) => {
            const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
            for (let at = 0; at < batch.length;) {
              if (at + 8 > batch.length) throw fail("a cut entry");
              const index = view.getUint32(at);
              const length = view.getUint32(at + 4);
              const end = at + 8 + length;
              // Each file once, in the order given, within the limit, holding no NUL byte.
              if (index < next || index >= files.length) throw fail("a file out of order");
              if (length > MAX_SEARCH_BYTES || end > batch.length) throw fail("a file too long");
              const data = batch.subarray(at + 8, end);
              if (data.includes(0)) throw fail("a binary file");
              // A round ends at the file that reaches ROUND_BYTES: no more than that and a file.
              if (bytes >= ROUND_BYTES) throw fail("more than a round of files");
              bytes += length;
              next = index + 1;
              at = end;
              round.push([index, data]);
            }
          },
        );
        for (const [index, data] of round) {
          if (await onFile(files[index], data) === true) return;
        }
        if (stop !== undefined) return;
        // `more`: the round ended with files left (after the last file it sent).
        const more = "more" in ok ? ok.more : null;
        if (more === null) return;
        if (more < next || more > files.length || more === 0) {
          throw new ToolError("tool_error", "The search failed in the sandbox: call again");
        }
        offset += more;
      }
    },
  });
}

/** An empty, `.` or `..` segment of a path (or a leading or trailing slash). */
const BAD_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** Whether a listed path is a plain relative path below the folder `prefix` ("" or "dir/"). */
function isBelow(path: string, prefix: string): boolean {
  return path.length > prefix.length && path.startsWith(prefix) && !BAD_SEGMENT.test(path);
}

/**
 * Runs one search operation in the context's session, handing its stream frames to `onStream`
 * (which returns a reason to stop, or throws `fail(why)` for an answer out of protocol). Stops at
 * the budget's deadline and on abort at once: the supervisor is told to cancel, and is given
 * `GRACE_MS` to answer before its session is ended (a hung supervisor).
 */
async function ask(
  ctx: ResolvedContext,
  sessions: SessionSource,
  budget: SearchBudget,
  header: Omit<RequestOf<"list">, "timeoutMs"> | Omit<RequestOf<"grep">, "timeoutMs">,
  body: Uint8Array | undefined,
  onStream: (
    stream: 1 | 2,
    bytes: Uint8Array,
    fail: (why: string) => Error,
  ) => string | void,
): Promise<{ stop: string | undefined; ok: OkOf<"list" | "grep"> }> {
  budget.check();
  // A search only reads: the running session serves it without a mounts check.
  const lease = await sessions.acquire(ctx, READ_ONLY);
  try {
    budget.check(); // starting the session may have taken a while
  } catch (error) {
    lease.release();
    throw error;
  }
  const session = lease.session;
  let id: number | undefined;
  let stop: string | undefined;
  const cancel = () => {
    if (id !== undefined) session.notify({ op: "stopSearch", target: id });
  };
  const request = { ...header, timeoutMs: budget.msLeft } as RequestOf<"list"> | RequestOf<"grep">;
  const answer = session.request(request, body, {
    timeoutMs: budget.msLeft + GRACE_MS,
    onTimeout: () => budget.timeout(),
    onId: (value) => id = value,
    onStream: (stream, bytes) => {
      if (stop !== undefined) return;
      stop = onStream(stream, bytes, (why) => session.fail(`it sent ${why}`)) ?? undefined;
      if (stop !== undefined) cancel();
    },
  });
  const settled = answer.finally(() => lease.release());
  settled.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const halted = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(budget.timeout()), budget.msLeft + 100);
    onAbort = () => reject(budget.signal.reason);
    budget.signal.addEventListener("abort", onAbort, { once: true });
    if (budget.signal.aborted) onAbort();
  });
  try {
    const { ok, error } = (await Promise.race([answer, halted])).header;
    if (error !== undefined) {
      throw new ToolError("tool_error", "The search failed in the sandbox: call again");
    }
    if (ok === undefined) {
      throw session.fail("it answered a search without a result");
    }
    const stopped = ok.stopped;
    if (stopped === "deadline") throw budget.timeout();
    if (stopped === "stopped" && stop === undefined) budget.check();
    return { stop, ok };
  } catch (error) {
    cancel();
    throw error;
  } finally {
    clearTimeout(timer);
    budget.signal.removeEventListener("abort", onAbort!);
  }
}
