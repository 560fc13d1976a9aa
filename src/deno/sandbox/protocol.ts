/**
 * The session protocol between the host and the supervisor inside the sandbox (see
 * `supervisor/supervisor_script.ts`): every request the host sends, discriminated by `op`, and the
 * answers the supervisor gives, each with the validator the host runs before it uses one. The
 * supervisor's families import the types only (their source text runs inside the sandbox, where
 * no module is at hand); the host validates every final answer in `SandboxSession.request`, so no
 * caller checks an answer by hand.
 *
 * A request gets its `id` from the session. Its answers are zero or more `stream` frames (an
 * `exec`, a `spawn`, a search) and one final frame: `ok`, `exit` (`exec`, `spawn`) or `error`.
 * Every message travels as one frame: its JSON part and a body of raw bytes, each preceded by its
 * length (`encodeFrame`, `FrameReader`).
 *
 * @module
 */
import { concat } from "@std/bytes";
import { z } from "zod";

/**
 * What `put` requires of its target before it writes: `"file-or-absent"` (a regular file or
 * nothing) or `"absent"` (nothing there).
 */
export type PutExpectation = "absent" | "file-or-absent";

/** The fields of each operation's request, by `op`. */
interface Requests {
  stat: { path: string; follow: boolean };
  open: { path: string; prefetch: number };
  read: { handle: number; length: number };
  close: { handle: number };
  mkdir: { path: string };
  remove: { path: string };
  readDir: { path: string };
  create: { path: string; mode: number | null };
  put: {
    path: string;
    to: string;
    mode: number | null;
    identity: { dev: number; ino: number | null } | null;
    expect: PutExpectation | null;
  };
  rename: { path: string; to: string };
  link: { path: string; to: string };
  exec: {
    command: string;
    prefix: string;
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
  };
  spawn: {
    command: string;
    prefix: string;
    cwd: string;
    env: Record<string, string>;
    stdio?: "passed";
  };
  cancel: { target: number };
  stopSearch: { target: number };
  signal: { target: number; signal: Deno.Signal };
  stdin: { target: number; close?: boolean };
  net: { path: string; port: number };
  ping: Record<never, never>;
  list: {
    root: string;
    start: string;
    maxDepth: number | null;
    gitignore: boolean;
    name: string;
    only: string;
    parents: string[];
    timeoutMs: number;
  };
  grep: { root: string; maxBytes: number; roundBytes: number; literal?: string; timeoutMs: number };
}

/** The operations' names. */
export type SupervisorOpName = keyof Requests;
/** The request of one operation. */
export type RequestOf<Op extends SupervisorOpName> = { op: Op } & Requests[Op];
/** Every request of the host, discriminated by `op`. */
export type SupervisorRequest = { [Op in SupervisorOpName]: RequestOf<Op> }[SupervisorOpName];
/** A request as the supervisor receives it: with the id the session gave it. */
export type Received<Op extends SupervisorOpName> = RequestOf<Op> & { id: number };

const count = z.int().nonnegative();

/** File information, as `stat`, `open`, `create` and `put` answer it. */
export const fileInfo = z.object({
  isFile: z.boolean(),
  isDirectory: z.boolean(),
  isSymlink: z.boolean(),
  isFifo: z.boolean(),
  isDevice: z.boolean(),
  isSocket: z.boolean(),
  size: count,
  mode: count.nullable(),
  dev: count,
  ino: count.nullable(),
});
/** File information (see {@linkcode fileInfo}). */
export type FileInfo = z.infer<typeof fileInfo>;

/** One directory entry of `readDir`: a plain name, never a path, `.` or `..`. */
export const dirEntry = z.object({
  name: z.string().refine(
    (name) => name !== "" && name !== "." && name !== ".." && !name.includes("/"),
    "not a plain name",
  ),
  isFile: z.boolean(),
  isDirectory: z.boolean(),
  isSymlink: z.boolean(),
});
/** One directory entry (see {@linkcode dirEntry}). */
export type DirEntry = z.infer<typeof dirEntry>;

const done = z.object({});
const searched = z.object({ stopped: z.enum(["deadline", "stopped"]).nullable() });

/** The validator of each operation's `ok` answer (`exec` and `spawn` answer with `exit`). */
const OK = {
  stat: z.object({ info: fileInfo }),
  open: z.union([
    z.object({ handle: z.null(), info: fileInfo }),
    z.object({ handle: count, info: fileInfo, eof: z.boolean() }),
  ]),
  read: z.object({ eof: z.boolean() }),
  close: done,
  mkdir: done,
  remove: done,
  readDir: z.object({ entries: z.array(dirEntry) }),
  create: z.object({ info: fileInfo }),
  put: z.object({ written: z.boolean(), before: fileInfo.nullable() }),
  rename: done,
  link: done,
  exec: z.never(),
  spawn: z.never(),
  cancel: done,
  stopSearch: done,
  signal: done,
  stdin: done,
  net: done,
  ping: done,
  list: searched,
  grep: searched.extend({ more: count.nullable() }),
} satisfies Record<SupervisorOpName, z.ZodType>;

/** The `ok` answer of one operation. */
export type OkOf<Op extends SupervisorOpName> = z.infer<(typeof OK)[Op]>;

/** The end of a command or background process (`exec`, `spawn`). */
export const exitInfo = z.object({
  code: z.int(),
  timedOut: z.boolean(),
  cancelled: z.boolean(),
  /**
   * The kernel's OOM killer acted in the session's limited cgroup while it ran, and it was
   * killed (137): its memory limit, not another sender of SIGKILL. Absent without a cgroup.
   */
  oom: z.boolean().optional(),
});

/** An operation that failed inside the sandbox: the error's class name and message. */
export const errorInfo = z.object({ name: z.string(), message: z.string() });

/** The final answer to a request, validated. */
export type FinalAnswer<Op extends SupervisorOpName> =
  | { ok: OkOf<Op>; error?: undefined; exit?: undefined }
  | { error: z.infer<typeof errorInfo>; ok?: undefined; exit?: undefined }
  | { exit: z.infer<typeof exitInfo>; ok?: undefined; error?: undefined };

/** Every frame the supervisor sends, as it sends it. */
export type SupervisorAnswer =
  | { id: 0; ready: { pid: number } }
  | { id: number; stream: 1 | 2 }
  | { id: number; ok: Record<string, unknown> }
  | { id: number; exit: z.input<typeof exitInfo> }
  | { id: number; error: z.infer<typeof errorInfo> };

/**
 * Validates a final answer for the operation asked: an `ok` of its shape, an `exit` (`exec` and
 * `spawn` only) or an `error`. Extra fields are dropped.
 *
 * @param op The operation asked.
 * @param header The answer frame's JSON part, as received (untrusted).
 * @returns The answer, or a string saying what was wrong with it (the session must end).
 */
export function parseFinalAnswer<Op extends SupervisorOpName>(
  op: Op,
  header: Record<string, unknown>,
): FinalAnswer<Op> | string {
  if (header.error !== undefined) {
    const error = errorInfo.safeParse(header.error);
    return error.success ? { error: error.data } : "an error without name and message";
  }
  if (op === "exec" || op === "spawn") {
    const exit = exitInfo.safeParse(header.exit);
    return exit.success ? { exit: exit.data } : `the end of ${op} without an exit code`;
  }
  // An operation the host does not know (a test's) has no shape to check: no answer fits.
  const ok = Object.hasOwn(OK, op) ? OK[op].safeParse(header.ok) : undefined;
  if (ok === undefined) return `an answer to an unknown operation`;
  return ok.success ? { ok: ok.data as OkOf<Op> } : `an answer to ${op} that is not well-formed`;
}

/** One frame of the session protocol: a JSON object and a body of raw bytes. */
export interface SessionFrame {
  /** The JSON part (an object). */
  readonly header: Record<string, unknown>;
  /** The body. */
  readonly body: Uint8Array;
}

/** The largest JSON part the host accepts from a supervisor (1 MiB). */
export const MAX_FRAME_JSON = 1 << 20;
/** The largest body the host accepts from a supervisor (17 MiB: a 16 MiB file and room). */
export const MAX_FRAME_BODY = 17 << 20;

/**
 * Encodes a frame: the JSON part's and the body's lengths (big-endian unsigned 32-bit), the JSON
 * part, the body.
 *
 * @param header The JSON part.
 * @returns The bytes to write.
 */
export function encodeFrame(
  header: Record<string, unknown>,
  body: Uint8Array = EMPTY,
): Uint8Array {
  const json = JSON.stringify(header);
  // The JSON part is encoded in place (at most three bytes per UTF-16 unit): one allocation.
  const room = new Uint8Array(8 + json.length * 3 + body.length);
  const length = encoder.encodeInto(json, room.subarray(8)).written;
  const frame = room.subarray(0, 8 + length + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, length);
  view.setUint32(4, body.length);
  frame.set(body, 8 + length);
  return frame;
}

const EMPTY = new Uint8Array();
const encoder = new TextEncoder();

/**
 * Splits a supervisor's output into frames, refusing anything that is not one: a length over
 * the limits, JSON that does not parse or is not an object. The supervisor runs code the model
 * can influence, so every frame is checked before it is used.
 */
export class FrameReader {
  // Copies of the bytes of an incomplete frame (a chunk given to `push` may be reused after).
  #pending: Uint8Array[] = [];
  #total = 0;
  #need = 8;
  #decoder = new TextDecoder();

  /**
   * Adds received bytes and returns the frames they complete. Throws a `RangeError` or
   * `SyntaxError` for bytes that are not a valid frame (the session must end). Keeps no
   * reference to `chunk`: the caller may read into its memory again once this returns.
   *
   * @param chunk The bytes received.
   * @returns The complete frames, in order.
   */
  push(chunk: Uint8Array): SessionFrame[] {
    if (this.#total + chunk.length < this.#need) {
      this.#pending.push(chunk.slice());
      this.#total += chunk.length;
      return [];
    }
    // Most often a chunk holds whole frames and nothing waits: it is read as it is.
    let all = this.#pending.length === 0 ? chunk : concat([...this.#pending, chunk]);
    const frames: SessionFrame[] = [];
    this.#need = 8;
    while (all.length >= 8) {
      const jsonLength = uint32(all, 0);
      const bodyLength = uint32(all, 4);
      if (jsonLength > MAX_FRAME_JSON || bodyLength > MAX_FRAME_BODY) {
        throw new RangeError(`a frame of ${jsonLength} + ${bodyLength} bytes is over the limit`);
      }
      const end = 8 + jsonLength + bodyLength;
      if (all.length < end) {
        this.#need = end;
        break;
      }
      const header: unknown = JSON.parse(this.#decoder.decode(all.subarray(8, 8 + jsonLength)));
      if (header === null || typeof header !== "object" || Array.isArray(header)) {
        throw new SyntaxError("a frame's JSON part is not an object");
      }
      frames.push({
        header: header as Record<string, unknown>,
        body: all.slice(8 + jsonLength, end),
      });
      all = all.subarray(end);
    }
    this.#pending = all.length > 0 ? [all.slice()] : [];
    this.#total = all.length;
    return frames;
  }
}

/** The big-endian unsigned 32-bit number at `at`. */
function uint32(bytes: Uint8Array, at: number): number {
  return (bytes[at] * 0x1000000) + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
}
