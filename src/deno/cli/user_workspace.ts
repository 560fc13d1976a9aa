import { relative } from "@std/path";
import type { BuiltinContext } from "../../core/tool_source.ts";
import { within } from "../sandbox/within.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";
import { UsageError } from "./usage_error.ts";

/** The placeholder of `workspace` that names a folder per user, such as `/srv/ws/{user}`. */
export const USER_PLACEHOLDER = "{user}";

const MAX_COMPONENT_BYTES = 255;

/** Whether a workspace path names a folder per user (holds {@linkcode USER_PLACEHOLDER}). */
export function isPerUserWorkspace(workspace: string): boolean {
  return workspace.includes(USER_PLACEHOLDER);
}

/**
 * Why a user id cannot be one path component, or `undefined` when it can: not empty, not `.` or
 * `..`, no `/`, `\`, NUL or other control character, at most 255 bytes.
 */
export function unsafeUserIdReason(userId: string): string | undefined {
  if (userId === "") return "it is empty";
  if (userId === "." || userId === "..") return `"${userId}" names a folder already`;
  if (/[/\\]/.test(userId)) return 'it holds "/" or "\\"';
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(userId)) return "it holds a control character";
  if (new TextEncoder().encode(userId).length > MAX_COMPONENT_BYTES) {
    return `it is longer than ${MAX_COMPONENT_BYTES} bytes`;
  }
  return undefined;
}

/**
 * The workspace of one user: {@linkcode USER_PLACEHOLDER} replaced by the id. Throws a
 * {@linkcode UsageError} for an id that is not one safe path component (`../x`, `a/b`, empty,
 * `.`), so that no id can name a folder outside its own.
 *
 * @param template The workspace with `{user}` (checked by {@linkcode workspaceProblems}).
 * @returns The absolute path of the user's folder.
 */
export function userWorkspace(template: string, userId: string): string {
  const reason = unsafeUserIdReason(userId);
  if (reason !== undefined) {
    throw new UsageError(
      `User id ${
        JSON.stringify(userId)
      } cannot name a folder for "workspace": ${template}: ${reason}; ids used for ${USER_PLACEHOLDER} must be one path component (not empty, not "." or "..", without "/", "\\" or control characters, at most ${MAX_COMPONENT_BYTES} bytes)`,
    );
  }
  return template.split("/").map((part) => part === USER_PLACEHOLDER ? userId : part).join("/");
}

/**
 * The built-in context of one user: the config's, with the user's own folder when `workspace`
 * holds `{user}`. Without `{user}` it is the config's context itself (a shared workspace).
 */
export function userContext(context: BuiltinContext, userId: string): BuiltinContext {
  if (!isPerUserWorkspace(context.workspace)) return context;
  return { ...context, workspace: userWorkspace(context.workspace, userId) };
}

/**
 * The built-in contexts a config can serve: one per configured user when `workspace` holds
 * `{user}` (for the permission flags and checks), else the config's own.
 */
export function servedContexts(config: ToolrouteConfig): BuiltinContext[] {
  if (!isPerUserWorkspace(config.context.workspace)) return [config.context];
  return config.users.map((user) => userContext(config.context, user.id));
}

/**
 * What is wrong with a config's per-user workspace, one line each (empty when nothing is, or
 * when `workspace` has no `{user}`): `{user}` must be one whole folder name, there must be users,
 * each user id must be one safe path component and distinct ignoring case, no read-only root may
 * open the users' folders to each other, `sharedWorkspace` contradicts it, and unsandboxed bash
 * would reach every folder.
 *
 * @param config The config (its `context`, `users` and `sharedWorkspace`).
 */
export function workspaceProblems(
  config: Pick<ToolrouteConfig, "context" | "users" | "sharedWorkspace">,
): string[] {
  const { context, users } = config;
  const template = context.workspace;
  if (!isPerUserWorkspace(template)) return [];
  const problems: string[] = [];
  const parts = template.split("/");
  const at = parts.indexOf(USER_PLACEHOLDER);
  if (
    parts.filter((part) => part.includes(USER_PLACEHOLDER)).length !== 1 ||
    at === -1
  ) {
    return [
      `"workspace" must hold ${USER_PLACEHOLDER} once, as a whole folder name (such as "/srv/ws/${USER_PLACEHOLDER}"), received "${template}"`,
    ];
  }
  if (users.length === 0) {
    problems.push(
      `"workspace" holds ${USER_PLACEHOLDER} but the config has no "users": add users, or name one folder`,
    );
  }
  const folded = new Map<string, string>();
  for (const user of users) {
    const reason = unsafeUserIdReason(user.id);
    if (reason !== undefined) {
      problems.push(
        `users.${user.tokenVariable}: the id ${
          JSON.stringify(user.id)
        } cannot name the user's folder for "workspace": ${template} (${reason}); use an id that is one path component (not empty, not "." or "..", without "/", "\\" or control characters)`,
      );
      continue;
    }
    // Case and Unicode normalization: file systems that fold either would merge two folders.
    const key = user.id.normalize("NFKC").toLowerCase();
    const other = folded.get(key);
    if (other !== undefined) {
      problems.push(
        `users.${user.tokenVariable}: the id "${user.id}" differs from "${other}" only in case or Unicode form: a file system that folds them would give both one folder; use ids that differ in more`,
      );
    }
    folded.set(key, user.id);
  }
  // The folder above the users' (for /srv/ws/{user}/app: /srv/ws): a read-only root around it, or
  // inside a user's folder, would let every user read the others' files.
  const parent = parts.slice(0, at).join("/") || "/";
  const ids = new Set(users.map((user) => user.id));
  for (const root of context.readOnlyRoots ?? []) {
    if (root.includes(USER_PLACEHOLDER)) {
      problems.push(
        `readOnlyRoots "${root}": only "workspace" may hold ${USER_PLACEHOLDER}; name a folder`,
      );
      continue;
    }
    const around = within(root, parent);
    if (around || (within(parent, root) && ids.has(relative(parent, root).split("/")[0]))) {
      problems.push(
        `readOnlyRoots "${root}" ${
          around ? "contains" : "is inside"
        } the users' folders (${template}): every user could read it; name folders outside them`,
      );
    }
  }
  if (config.sharedWorkspace === true) {
    problems.push(
      `"sharedWorkspace": true contradicts ${USER_PLACEHOLDER} in "workspace" (a folder per user); keep one of them`,
    );
  }
  const bash = context.bash;
  if (typeof bash === "object" && bash.sandbox === "none") {
    problems.push(
      `${USER_PLACEHOLDER} in "workspace" gives each user a folder, but bash.sandbox "none" lets every command reach every folder; use sandbox "bwrap" (or bash: true)`,
    );
  }
  return problems;
}

/**
 * Refuses (a {@linkcode UsageError}) to serve several users what would not keep them apart: one
 * workspace, unless the config says so (with two or more users, built-in tools and no `{user}` in
 * `workspace`, either `"sharedWorkspace": true` (or `--shared-workspace`) or a folder per user is
 * required), and unsandboxed bash (`bash.sandbox: "none"` runs every user's commands as the OS
 * user serve runs as: they could read each other's files and processes, and the users' bearer
 * tokens in serve's own environment).
 *
 * @param sharedFlag Whether `--shared-workspace` was given.
 */
export function checkUserSeparation(config: ToolrouteConfig, sharedFlag = false): void {
  const builtinsServed = config.builtins !== false &&
    (config.expose.builtins === undefined || config.expose.builtins.length > 0);
  if (!builtinsServed || config.users.length < 2) return;
  const ids = config.users.map((user) => `"${user.id}"`).join(", ");
  const bash = config.context.bash;
  const bashServed = config.expose.builtins === undefined ||
    config.expose.builtins.includes("bash");
  if (bashServed && typeof bash === "object" && bash.sandbox === "none") {
    throw new UsageError(
      `Refusing to serve: ${config.users.length} users (${ids}) with bash.sandbox "none": every user's commands would run unconfined as this OS user, able to read the others' files and processes and the users' bearer tokens in serve's environment. Use sandbox "bwrap" (or bash: true), or leave "bash" out of expose.builtins`,
    );
  }
  if (isPerUserWorkspace(config.context.workspace)) return;
  if (config.sharedWorkspace === true || sharedFlag) return;
  const workspace = config.context.workspace;
  throw new UsageError(
    `Refusing to serve: ${config.users.length} users (${ids}) would share the workspace "${workspace}" and its files. Either give each user their own folder with ${USER_PLACEHOLDER} in "workspace" (such as "${
      workspace.replace(/\/+$/, "")
    }/${USER_PLACEHOLDER}", created on first use), or say that they share it with "sharedWorkspace": true in the config (or --shared-workspace). Each user has their own sandbox either way`,
  );
}

/**
 * Creates a user's folder (and missing parents) readable by its owner only, when it does not
 * exist yet. Throws an `Error` that names the user and the folder when it cannot be made.
 *
 * Requires `allow-write` permission for the folder.
 *
 * @tags allow-write
 * @param path The user's folder (from {@linkcode userWorkspace}).
 * @param userId The user, for the message.
 */
export async function makeUserWorkspace(path: string, userId: string): Promise<void> {
  try {
    await Deno.mkdir(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(
      `Cannot create the workspace of user "${userId}" at "${path}": ${
        (error as Error).message
      }; create it, or fix what is in its place`,
    );
  }
}
