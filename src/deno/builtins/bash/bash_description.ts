import type { ResolvedContext } from "../builtin_context.ts";

/**
 * The description of the `bash` tool for the model: what it can do, and plainly what confines
 * it (bubblewrap) or that nothing does (`sandbox: "none"`).
 */
export function describeBash(ctx: ResolvedContext): string {
  const sandboxed = ctx.bash !== false && ctx.bash.sandbox === "bwrap";
  const network = ctx.bash === false ? undefined : ctx.bash.network;
  const confinement = sandboxed
    ? "Commands run in a bubblewrap sandbox: only the workspace (read-write)" +
      (ctx.readOnlyRoots.length > 0 ? ", the read-only roots" : "") +
      ", system directories (read-only) and an empty /tmp are visible; " +
      (network === undefined
        ? "there is no network."
        : `the network reaches only ${network.allow.join(", ")}, through a proxy (HTTPS_PROXY).`)
    : "Commands are NOT sandboxed: they can do anything the operating-system user can " +
      "(Deno's --allow-run does not confine child processes); only cwd is checked.";
  return `Runs a bash command in the workspace. ${confinement} ` +
    `action "exec" (default) runs command to its end with stdin closed and returns JSON ` +
    `{ exitCode, stdout, stderr, timedOut } (timeout at most ${ctx.commandTimeoutMs} ms, output ` +
    `cut to ${ctx.outputMaxChars} characters, head and tail kept). Background processes: "start" ` +
    `{ command } returns a processId; "status", "logs" { offset, limit }, "write" { input }, ` +
    `"stop" take processId; "list" shows all.`;
}
