import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import {
  assertFileSandboxRan,
  fileSandboxTimeout,
  sandboxSystemError,
  spawnInFileSandbox,
} from "./file_sandbox.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import type { FileIdentity } from "../files/staged_commit.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

// Opens the file once, refuses anything but a regular file (checked on the open descriptor), and
// for "identity" first prints "dev:ino mode" of that same open file.
const READ_SCRIPT = `
export LC_ALL=C PATH=/usr/bin:/bin
exec 3< "$1" || exit 4
[ -f /dev/fd/3 ] || exit 5
if [ "$2" = identity ]; then stat -L -c '%d:%i %a' /dev/fd/3 || exit 4; fi
exec cat <&3
`;

/**
 * Reads one file inside the file sandbox (the mounts of the sandboxed bash tool), streaming: a
 * symlink swapped into the workspace can only lead to what a sandboxed command could read anyway.
 * Use `read` like `Deno.FsFile.read`, then always `finish`, which ends the sandbox and throws what
 * went wrong (not a regular file, the operating system's refusal, the deadline).
 */
export class SandboxedReader {
  #child: Deno.ChildProcess;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #stderr: Promise<string>;
  #rest: Uint8Array = new Uint8Array();
  #ended = false;
  #timedOut = false;
  #timer: ReturnType<typeof setTimeout>;
  #ctx: ResolvedContext;
  /** Device and inode of the file read, and its permission bits (with `identity: true`). */
  identity?: FileIdentity & { mode: number };

  private constructor(ctx: ResolvedContext, child: Deno.ChildProcess) {
    this.#ctx = ctx;
    this.#child = child;
    this.#reader = child.stdout.getReader();
    this.#stderr = new Response(child.stderr).text();
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      child.kill("SIGKILL");
    }, ctx.commandTimeoutMs);
  }

  /**
   * Starts reading a checked path in the sandbox.
   *
   * Requires `allow-run` permission for `bwrap`.
   *
   * @tags allow-run
   * @param ctx The request's context (bash sandboxed).
   * @param path The checked path.
   * @param identity Whether to learn the identity and permission bits of the file read.
   * @returns The reader; call `finish` when done.
   */
  static async open(
    ctx: ResolvedContext,
    path: ResolvedPath,
    identity = false,
  ): Promise<SandboxedReader> {
    const args = [path.real, identity ? "identity" : "-"];
    const reader = new SandboxedReader(
      ctx,
      await spawnInFileSandbox(ctx, READ_SCRIPT, args, "null"),
    );
    if (identity) {
      const line = await reader.#line();
      const match = /^(\d+):(\d+) ([0-7]+)$/.exec(line ?? "");
      if (match !== null) {
        reader.identity = {
          dev: Number(match[1]),
          ino: Number(match[2]),
          mode: parseInt(match[3], 8),
        };
      }
    }
    return reader;
  }

  /**
   * Reads the next bytes of the file into `buffer`.
   *
   * @param buffer Where to put them.
   * @returns The number of bytes, or `null` at the end.
   */
  async read(buffer: Uint8Array): Promise<number | null> {
    if (this.#rest.length === 0) {
      if (this.#ended) return null;
      const { value, done } = await this.#reader.read();
      if (done) {
        this.#ended = true;
        return null;
      }
      this.#rest = value;
    }
    const count = Math.min(buffer.length, this.#rest.length);
    buffer.set(this.#rest.subarray(0, count));
    this.#rest = this.#rest.subarray(count);
    return count;
  }

  /**
   * Ends the sandbox (stopping it when the caller read less than everything) and throws a
   * `ToolError` when the read failed.
   *
   * @param shown The path as the model gave it.
   * @param root The allowed root of the path.
   */
  async finish(shown: string, root: string): Promise<void> {
    const complete = this.#ended && this.#rest.length === 0;
    if (!complete) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // It ended already.
      }
    }
    await this.#reader.cancel().catch(() => {});
    const [status, stderr] = await Promise.all([this.#child.status, this.#stderr]);
    clearTimeout(this.#timer);
    if (this.#timedOut) throw fileSandboxTimeout(this.#ctx);
    if (!complete || status.code === 0) return;
    assertFileSandboxRan(status.code, "", stderr);
    if (status.code === 5) {
      throw new ToolError("tool_error", `Cannot read ${quote(shown)}: it is not a regular file`);
    }
    throw toFsToolError(sandboxSystemError(stderr), { access: "read", shown, root });
  }

  async #line(): Promise<string | undefined> {
    const bytes: number[] = [];
    const one = new Uint8Array(1);
    while (bytes.length < 100) {
      if (await this.read(one) === null) return undefined;
      if (one[0] === 0x0a) return new TextDecoder().decode(new Uint8Array(bytes));
      bytes.push(one[0]);
    }
    return undefined;
  }
}
