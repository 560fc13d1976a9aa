import { ToolError } from "../../../core/tool_error.ts";
import { granted, programInstalled } from "../permissions/program_installed.ts";
import { bwrapMissing } from "../../sandbox/bwrap_missing.ts";

/**
 * Checks, without prompting, that the process may run what a bash call needs, and reads the
 * environment the command receives.
 *
 * Each check is a `Deno.permissions.querySync`: a permission that is not granted gives
 * `permission_denied` naming the flag the host must add, instead of a prompt that would hang a
 * server or Deno's `NotCapable` at spawn time.
 *
 * @param programs The programs spawned: `["bash"]`, or `["bash", "bwrap"]` when sandboxed.
 * @param envNames The environment variable names passed to the command.
 * @returns The environment: each name the host has, with its value.
 */
export function bashEnvironment(
  programs: readonly string[],
  envNames: readonly string[],
): Record<string, string> {
  // Asked on every call, never cached: the host may revoke a permission at any time
  // (`Deno.permissions.revoke`), and a revoke of a wider descriptor (all of `run`) changes no
  // status object kept for a narrower one. Loops, not filters: this runs before every command.
  let notRunnable: string[] | undefined;
  for (const command of programs) {
    if (!granted({ name: "run", command })) (notRunnable ??= []).push(command);
  }
  if (notRunnable !== undefined) {
    // A program that is not installed is not fixed by a flag: say what is missing instead.
    if (notRunnable.includes("bwrap") && programInstalled("bwrap") === false) {
      throw new ToolError(
        "tool_error",
        bwrapMissing(programs.includes("bash") ? "bash" : "session"),
      );
    }
    if (notRunnable.includes("bash") && programInstalled("bash") === false) {
      throw new ToolError("tool_error", "Cannot run the command: bash is not installed");
    }
    throw new ToolError(
      "permission_denied",
      `The sandbox denied running ${
        notRunnable.map((p) => `"${p}"`).join(" and ")
      }: the host must run Deno with --allow-run=${programs.join(",")}`,
    );
  }
  let hidden: string[] | undefined;
  for (const variable of envNames) {
    if (!granted({ name: "env", variable })) (hidden ??= []).push(variable);
  }
  if (hidden !== undefined) {
    throw new ToolError(
      "permission_denied",
      `The sandbox denied reading the environment variables ${
        hidden.map((n) => `"${n}"`).join(", ")
      } that commands receive: the host must run Deno with --allow-env=${envNames.join(",")}`,
    );
  }
  const env: Record<string, string> = {};
  for (const name of envNames) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}
