import { ToolError } from "../../core/tool_error.ts";

// What a missing bubblewrap means, for every room that starts it: bash's environment check (here,
// below the sandbox) and the sandbox's own launch.

/** What a bubblewrap start was for: a bash command, or a sandbox session (file tools, exec). */
export type SandboxUse = "bash" | "session";

/** How to install bubblewrap, as the README says it. */
export const BWRAP_INSTALL =
  "sudo apt-get install -y bubblewrap (Debian, Ubuntu) or sudo dnf install bubblewrap (Fedora)";

/**
 * The message for a missing `bwrap` program: that it is not installed, how to install it, and
 * what works without it.
 *
 * @param use What the sandbox was for.
 */
export function bwrapMissing(use: SandboxUse): string {
  const head = use === "bash"
    ? "The bash sandbox could not start: bubblewrap (bwrap) is not installed. The command " +
      "did not run (it never runs unconfined instead)"
    : "The sandbox could not start: bubblewrap (bwrap) is not installed. Nothing was run, " +
      "read or written (commands and file operations never run unconfined while bash is sandboxed)";
  return `${head}. Install it: ${BWRAP_INSTALL}. ${BWRAP_STILL_WORKS}`;
}

/** What works without bubblewrap, for the messages that say it is missing. */
export const BWRAP_STILL_WORKS = "Without it the MCP servers and functions still work, and " +
  'without bash ("bash": false, the default) the file tools run unsandboxed, confined by ' +
  "their path checks and Deno's permissions";

/**
 * The error of a sandbox session that could not start because bubblewrap is not installed: a
 * `tool_error` with {@linkcode bwrapMissing}'s message, which a caller that may run without the
 * sandbox (a stdio server whose config asked for none) recognises by its type.
 */
export class SandboxMissing extends ToolError {
  /**
   * Creates the error.
   *
   * @param options The standard error options (`cause`).
   */
  constructor(options?: ErrorOptions) {
    super("tool_error", bwrapMissing("session"), options);
    this.name = "SandboxMissing";
  }
}
