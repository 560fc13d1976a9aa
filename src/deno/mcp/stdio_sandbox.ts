import { join, normalize } from "@std/path";
import { broadRootReason } from "../builtins/broad_root.ts";
import { realPathOrUndefined } from "../builtins/paths/fs_probes.ts";
import type { McpStdioSandboxSetting } from "../../core/mcp/mcp_server_config.ts";
import { BWRAP_INSTALL } from "../sandbox/bwrap_missing.ts";
import type { ResourceLimits } from "../sandbox/resource_limits.ts";
import type { CommandSandbox } from "../sandbox/spawn_sandboxed.ts";

/**
 * The bounds of a sandboxed stdio server when its config sets none: room for a Node or Python
 * server and its first `npx`/`uvx` install, not for a fork bomb or a memory hog. A server is
 * long-lived, so its CPU bound (each process's) is a week of CPU time, not bash's hour.
 */
export const STDIO_SANDBOX_LIMITS: ResourceLimits = Object.freeze({
  processes: 256,
  memoryMiB: 1024,
  tmpMiB: 512,
  fileMiB: 1024,
  backgroundCpuSeconds: 7 * 24 * 3600,
  diskMiB: 1024,
});

/** How a stdio server is to run. */
export type StdioSandboxPlan =
  | { readonly kind: "sandboxed"; readonly sandbox: CommandSandbox }
  | { readonly kind: "unconfined"; readonly warning?: string };

/**
 * Decides where a stdio server runs: in its own bubblewrap sandbox when its config does not say
 * `"none"` and bubblewrap is on the `PATH` it is spawned with; unconfined with a warning (what is
 * unconfined, how to install bubblewrap) when bubblewrap is missing and the config said nothing.
 * Throws an `Error` when the config asks for the sandbox (`"bwrap"` or an object) and bubblewrap
 * is missing, or the system is not Linux (bubblewrap is Linux's): it never runs unconfined then.
 * Elsewhere than on Linux, a server whose config says nothing runs unconfined without a warning
 * (no sandbox can be installed there).
 *
 * Requires `allow-read` for the `PATH` folders.
 *
 * @tags allow-read
 * @param spawn The command, the `PATH` bubblewrap is looked for on, and the system (default:
 *   this one's).
 */
export function stdioSandboxPlan(
  setting: McpStdioSandboxSetting | undefined,
  spawn: { command: string; path: string | undefined; os?: typeof Deno.build.os },
): StdioSandboxPlan {
  if (setting === "none") return { kind: "unconfined" };
  const refused = (why: string, fix: string) =>
    new Error(
      `its config asks for a sandbox ("sandbox": ${
        JSON.stringify(setting === "bwrap" ? setting : "{…}")
      }) but ${why}, and a server that asks for one never runs unconfined. ${fix} set ` +
        `"sandbox": "none" to run it as a plain process of the user`,
    );
  if ((spawn.os ?? Deno.build.os) !== "linux") {
    if (setting === undefined) return { kind: "unconfined" };
    throw refused("the bubblewrap sandbox runs on Linux only", "Run it on Linux, or");
  }
  if (bwrapInstalled(spawn.path) === false) {
    if (setting === undefined) {
      return { kind: "unconfined", warning: unconfinedWarning(spawn.command) };
    }
    throw refused("bubblewrap (bwrap) is not installed", `Install it: ${BWRAP_INSTALL}; or`);
  }
  const fields = typeof setting === "object" ? setting : {};
  for (const [key, paths] of [["roots", fields.roots], ["readOnly", fields.readOnly]] as const) {
    for (const path of paths ?? []) {
      const reason = broadRootReason(normalize(path).replace(/(.)\/+$/, "$1")) ??
        broadRootReason(realPathOrUndefined(path) ?? path);
      if (reason === undefined) continue;
      // A home or a system folder shared with the server is what the sandbox keeps from it (as
      // bash's workspace, which refuses the same paths).
      throw new Error(
        `its "sandbox.${key}" holds "${path}", which is too broad to share with a server ` +
          `(${reason}): it would see the user's keys and credentials. Name the folders it ` +
          `needs, or set "sandbox": "none" to run it unconfined on purpose`,
      );
    }
  }
  const network = fields.network;
  return {
    kind: "sandboxed",
    sandbox: {
      roots: fields.roots ?? [],
      readOnly: fields.readOnly ?? [],
      ...(network === undefined || network === "none" ? {} : { allow: network.allow }),
      registries: network !== "none",
      limits: { ...STDIO_SANDBOX_LIMITS, ...fields.limits },
    },
  };
}

/**
 * Whether `bwrap` is on a `PATH`: `false` when no folder of it holds one, `undefined` when a
 * folder could not be read (then the start says).
 */
function bwrapInstalled(path: string | undefined): boolean | undefined {
  let unknown = false;
  for (const dir of (path ?? "").split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      if (Deno.statSync(join(dir, "bwrap")).isFile) return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) unknown = true;
    }
  }
  return unknown ? undefined : false;
}

/**
 * The one warning for a server that runs unconfined because bubblewrap is missing.
 *
 * @returns What is unconfined and how to install bubblewrap.
 */
export function unconfinedWarning(command: string): string {
  return `"${command}" runs unconfined: bubblewrap (bwrap) is not installed, so it reads and ` +
    `writes the user's whole home folder (SSH keys, cloud credentials), reaches the whole ` +
    `network and has no process or memory limit. Install it: ${BWRAP_INSTALL} (sandboxed by ` +
    `default then); or set "sandbox": "none" in its config to keep it unconfined`;
}
