import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import {
  type FileAccess,
  type FileEntry,
  type FileStat,
  meetsExpectation,
  type OpenedFile,
  type PutOptions,
  type PutResult,
  type StageOptions,
} from "../files/file_access.ts";
import { tempPathFor } from "../files/staged_file.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";
import type { SandboxSession } from "../../sandbox/sandbox_session.ts";
import type { SessionSource } from "./sandbox_sessions.ts";
import type { SessionLease } from "../../sandbox/session_process.ts";
import type { OkOf, SupervisorRequest } from "../../sandbox/protocol.ts";
import { checkWorkspaceDisk } from "./workspace_disk.ts";

// The first bytes of a file come with the answer to `open`: a small file costs one round trip.
const PREFETCH_BYTES = 64 * 1024;
// The operations that write nothing.
const READING: ReadonlySet<string> = new Set(["stat", "readDir"]);

// A session's use: only reads, or may write (its mounts checked first).
const READ_ONLY = Object.freeze({ reading: true });
const WRITING = Object.freeze({ reading: false });

/**
 * The file access of a context whose bash is sandboxed: every operation runs in the context's
 * sandbox session, where a symlink swapped into the workspace can only lead to what a sandboxed
 * command could reach anyway. Answers are validated (a supervisor that lies ends its session).
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 */
export function sessionFileAccess(ctx: ResolvedContext, sessions: SessionSource): FileAccess {
  // Reads take the running session as it is; writes check its mounts first (`acquire`).
  const call = async <R extends SupervisorRequest>(header: R, body?: Uint8Array) => {
    const lease = await sessions.acquire(ctx, READING.has(header.op) ? READ_ONLY : WRITING);
    try {
      return await ask(ctx, lease.session, header, body);
    } finally {
      lease.release();
    }
  };
  return Object.freeze({
    where: "sandbox" as const,
    async stat(path: string): Promise<FileStat> {
      return (await call({ op: "stat", path, follow: true })).ok.info;
    },
    async lstat(path: string): Promise<FileStat | undefined> {
      try {
        return (await call({ op: "stat", path, follow: false })).ok.info;
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    async open(path: ResolvedPath): Promise<{ info: FileStat; file?: OpenedFile }> {
      const lease = await sessions.acquire(ctx, READ_ONLY);
      try {
        const answer = await ask(ctx, lease.session, {
          op: "open",
          path: path.real,
          prefetch: PREFETCH_BYTES,
        });
        const opened = answer.ok;
        const info = opened.info;
        if (opened.handle === null) {
          lease.release();
          return { info };
        }
        if (!info.isFile) {
          throw lease.session.fail("it opened something that is not a regular file");
        }
        if (answer.body.length > PREFETCH_BYTES) throw lease.session.fail("it sent too many bytes");
        return {
          info,
          file: new SessionFile(ctx, lease, opened.handle, info, answer.body, opened.eof),
        };
      } catch (error) {
        lease.release();
        throw error;
      }
    },
    async stage(target: ResolvedPath, data: Uint8Array, options: StageOptions) {
      // The file tools' writes count toward the workspace's disk bound, as commands' do.
      const noteWrite = await checkWorkspaceDisk(ctx);
      const temp = tempPathFor(target.real);
      await call({ op: "create", path: temp, mode: options.mode ?? null }, data);
      noteWrite(data.byteLength);
      return temp;
    },
    async put(target: ResolvedPath, data: Uint8Array, options: PutOptions): Promise<PutResult> {
      // One round trip: the supervisor looks at the target (with `expect`), creates the
      // temporary file, checks the target's identity and renames the file into place.
      const noteWrite = await checkWorkspaceDisk(ctx);
      const temp = tempPathFor(target.real);
      const { ok, session } = await call({
        op: "put",
        path: temp,
        to: target.real,
        mode: options.mode ?? null,
        identity: options.identity ?? null,
        expect: options.expect ?? null,
      }, data);
      noteWrite(data.byteLength);
      return asPutResult(session, ok, options);
    },
    mkdir: async (path: string) => void await call({ op: "mkdir", path }),
    rename: async (from: string, to: string) => void await call({ op: "rename", path: from, to }),
    link: async (from: string, to: string) => void await call({ op: "link", path: from, to }),
    remove: async (path: string) => void await call({ op: "remove", path }),
    readDir: async (path: string): Promise<FileEntry[]> =>
      (await call({ op: "readDir", path })).ok.entries,
  });
}

class SessionFile implements OpenedFile {
  #rest: Uint8Array;
  #eof: boolean;
  #closed = false;
  constructor(
    private readonly ctx: ResolvedContext,
    private readonly lease: SessionLease,
    private readonly handle: number,
    readonly info: FileStat,
    first: Uint8Array,
    eof: boolean,
  ) {
    this.#rest = first;
    this.#eof = eof;
  }

  async read(buffer: Uint8Array): Promise<number | null> {
    if (this.#rest.length === 0) {
      if (this.#eof) return null;
      const answer = await ask(this.ctx, this.lease.session, {
        op: "read",
        handle: this.handle,
        length: buffer.length,
      });
      if (answer.body.length > buffer.length) {
        throw this.lease.session.fail("it sent too many bytes");
      }
      // At the end the supervisor closed the file: asking again would name a closed handle.
      if (answer.ok.eof) this.#eof = true;
      if (answer.body.length === 0) {
        this.#eof = true;
        return null;
      }
      this.#rest = answer.body;
    }
    const count = Math.min(buffer.length, this.#rest.length);
    buffer.set(this.#rest.subarray(0, count));
    this.#rest = this.#rest.subarray(count);
    return count;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    // At the end of the file the supervisor closed it already (one message less per read).
    if (!this.#eof) this.lease.session.notify({ op: "close", handle: this.handle });
    this.lease.release();
    return Promise.resolve();
  }
}

/** Asks the session; an `error` answer is thrown as the operating system's refusal. */
async function ask<R extends SupervisorRequest>(
  ctx: ResolvedContext,
  session: SandboxSession,
  header: R,
  body?: Uint8Array,
): Promise<{ ok: OkOf<R["op"]>; body: Uint8Array; session: SandboxSession }> {
  const answer = await session.request(header, body, {
    timeoutMs: ctx.commandTimeoutMs,
    onTimeout: () =>
      new ToolError(
        "timeout",
        `The file operation took longer than ${ctx.commandTimeoutMs} ms in the sandbox and was stopped`,
      ),
  });
  const { ok, error } = answer.header;
  if (error !== undefined) throw systemError(error);
  if (ok === undefined) throw session.fail("it answered a file operation without a result");
  return { ok, body: answer.body, session };
}

const ERRORS: Record<string, new (message: string) => Error> = {
  NotFound: Deno.errors.NotFound,
  PermissionDenied: Deno.errors.PermissionDenied,
  NotCapable: Deno.errors.PermissionDenied,
  AlreadyExists: Deno.errors.AlreadyExists,
  NotADirectory: Deno.errors.NotADirectory,
  IsADirectory: Deno.errors.IsADirectory,
  FilesystemLoop: Deno.errors.FilesystemLoop,
  Busy: Deno.errors.Busy,
};

/** The operating system's refusal, as its `Deno.errors` class; the message never names a path. */
function systemError({ name, message }: { name: string; message: string }): Error {
  // "No such file or directory (os error 2): open '/x'": the reason, without the path.
  const reason = message.split(/\): |: /)[0].replace(/ \(os error \d+$/, "").slice(0, 200);
  const clean = /['"/]/.test(reason) ? "the sandboxed file operation failed" : reason;
  if (/Read-only file system/.test(message)) return new Deno.errors.PermissionDenied(clean);
  const Class = ERRORS[name];
  return Class === undefined ? new Error(clean) : new Class(clean);
}

/** What the supervisor says `put` did, checked against what it says it saw. */
function asPutResult(
  session: SandboxSession,
  ok: OkOf<"put">,
  options: PutOptions,
): PutResult {
  const before = ok.before ?? undefined;
  const consistent = options.expect === undefined
    ? ok.written && before === undefined
    : ok.written === meetsExpectation(options.expect, before);
  if (!consistent) throw session.fail("it answered a put that does not fit what it saw");
  return { written: ok.written, before };
}
