import { dirname } from "@std/path";
import type { BuiltinContext } from "../../../core/tool_source.ts";
import { within } from "../../sandbox/within.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { denoFlags } from "./deno_flags.ts";
import { granted } from "./program_installed.ts";
import { requiredPermissions } from "./required_permissions.ts";

/** One permission that is missing or in excess. */
export interface PermissionGap {
  /** The permission: `"read"`, `"write"`, `"run"`, `"env"`, `"net"`, `"sys"` or `"ffi"`. */
  name: Deno.PermissionName;
  /** The path, program, variable or host; absent for the unscoped permission. */
  value?: string;
  /** The flag that grants it, such as `--allow-read=/srv/ws`. */
  flag: string;
}

/** What {@linkcode checkPermissions} finds. */
export interface PermissionReport {
  /** What the context needs and the process lacks: calls needing it get `permission_denied`. */
  missing: PermissionGap[];
  /** What the process holds beyond the context's needs (such as everything under `-A`). */
  excess: PermissionGap[];
}

// The field of each scoped permission's descriptor, in the order of `missing`.
const SCOPE = { read: "path", write: "path", run: "command", env: "variable" } as const;
const OTHER_PERMISSIONS = ["net", "sys", "ffi"] as const;
const LOOPBACK_HOSTS = ["127.0.0.1", "localhost"];

/**
 * Compares the process's Deno permissions with what a built-in context needs, without
 * prompting (`Deno.permissions.querySync` never prompts).
 *
 * `missing` lists each path, program and variable of {@linkcode denoFlags} that is not granted.
 * `excess` lists each unscoped permission that is granted (all of them under `-A`), and the
 * scoped grants it can detect by probing: `bash`/`bwrap` when the context does not run them,
 * writes to a read-only root, reads or writes of the workspace's parent directory, and net
 * access to the loopback host. Deno cannot enumerate scoped grants, so a grant to an unrelated
 * path or host goes unnoticed.
 *
 * @example List what is missing and what is in excess
 * ```ts
 * import { checkPermissions } from "@toolroute/toolroute/deno";
 * import { assert } from "@std/assert";
 *
 * const { missing, excess } = checkPermissions({ workspace: "/srv/ws" });
 * // Each entry names the flag, such as "--allow-write=/srv/ws" or "--allow-net".
 * assert([...missing, ...excess].every((gap) => gap.flag.startsWith("--allow-")));
 * ```
 *
 * @param context The context, as given to `builtinTools` or already resolved.
 * @returns The missing and the excess permissions.
 */
export function checkPermissions(context: BuiltinContext | ResolvedContext): PermissionReport {
  const needed = requiredPermissions(context);
  const missing = (Object.keys(SCOPE) as (keyof typeof SCOPE)[]).flatMap((name) =>
    needed[name].filter((value) =>
      !granted({ name, [SCOPE[name]]: value } as Deno.PermissionDescriptor)
    )
      .map((value) => gap(name, value))
  );
  const excess: PermissionGap[] = [];
  const unscoped = (name: Deno.PermissionName) => granted({ name } as Deno.PermissionDescriptor);
  const parent = dirname(needed.write[0]);
  if (unscoped("read")) excess.push(gap("read"));
  else if (parent !== needed.write[0] && !covered(needed.read, parent)) {
    if (granted({ name: "read", path: parent })) excess.push(gap("read", parent));
  }
  if (unscoped("write")) excess.push(gap("write"));
  else {
    const probes = [...needed.read.filter((p) => !covered(needed.write, p)), parent];
    for (const path of new Set(probes)) {
      if (path !== needed.write[0] && granted({ name: "write", path })) {
        excess.push(gap("write", path));
      }
    }
  }
  if (unscoped("run")) excess.push(gap("run"));
  else {
    for (const command of ["bash", "bwrap"]) {
      if (!needed.run.includes(command) && granted({ name: "run", command })) {
        excess.push(gap("run", command));
      }
    }
  }
  if (unscoped("env")) excess.push(gap("env"));
  for (const name of OTHER_PERMISSIONS) {
    if (unscoped(name)) excess.push(gap(name));
    else if (name === "net") {
      for (const host of LOOPBACK_HOSTS) {
        if (granted({ name: "net", host })) excess.push(gap("net", host));
      }
    }
  }
  return { missing, excess };
}

/**
 * Throws a `TypeError` when the process holds more permissions than the context needs: the
 * start-up check of `builtinTools(context, { strict: true })`.
 *
 * @param context The context.
 */
export function assertNoExcess(context: BuiltinContext | ResolvedContext): void {
  const { excess } = checkPermissions(context);
  if (excess.length === 0) return;
  throw new TypeError(
    `Cannot create built-in tools in strict mode: the process holds more permissions than the context needs (${
      excess.map((e) => e.flag).join(" ")
    }); run Deno with exactly ${denoFlags(context).join(" ")}`,
  );
}

/** The gap of one permission: unscoped without `value`, else of that path, program or host. */
export function gap(name: Deno.PermissionName, value?: string): PermissionGap {
  return {
    name,
    value,
    flag: value === undefined ? `--allow-${name}` : `--allow-${name}=${value}`,
  };
}

function covered(roots: readonly string[], path: string): boolean {
  return roots.some((root) => within(root, path));
}
