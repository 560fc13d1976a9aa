import { exists } from "@std/fs";
import { loadConfig, type LoadConfigOptions } from "./load_config.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";
import { terminalAsker } from "./terminal_approval.ts";
import { UsageError } from "./usage_error.ts";

/** Where the CLI writes: injectable so tests capture output. */
export interface CliIo {
  /** Writes a line of results. */
  out(line: string): void;
  /** Writes a line of logs or errors. */
  err(line: string): void;
  /** Asks a person a question and returns the answer line; absent when nobody can be asked. */
  ask?: (question: string, options?: { readonly hidden?: boolean }) => Promise<string | null>;
  /** `true` when `err` writes to a terminal: a person watches, progress lines help. */
  terminal?: boolean;
}

const encoder = new TextEncoder();

/** Writes to the process's stdout and stderr. */
export const DENO_IO: CliIo = Object.freeze({
  out: (line: string) => void Deno.stdout.writeSync(encoder.encode(line + "\n")),
  err: (line: string) => void Deno.stderr.writeSync(encoder.encode(line + "\n")),
  ask: terminalAsker(),
  terminal: Deno.stderr.isTerminal(),
});

/** The config file used when `--config` is not given and the file exists. */
export const DEFAULT_CONFIG = "toolroute.json";

/**
 * Loads the config named by `--config` (or `toolroute.json` when it exists), with `--workspace`.
 *
 * @tags allow-read, allow-env
 * @param flags The parsed flags.
 * @param options Variables (`false` to leave them unexpanded).
 */
export async function configFromFlags(
  flags: Record<string, string | true>,
  options: Pick<LoadConfigOptions, "env" | "onWarning" | "ask"> = {},
): Promise<ToolrouteConfig> {
  const given = typeof flags.config === "string" ? flags.config : undefined;
  // A toolroute.json that cannot even be checked (no read permission) counts as absent.
  const found = (path: string) => exists(path, { isFile: true }).catch(() => false);
  const path = given ?? (await found(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined);
  const workspace = typeof flags.workspace === "string" ? flags.workspace : undefined;
  if (path === undefined && workspace === undefined) {
    // Serving nothing in silence (an empty table, exit 0) leaves a new user guessing.
    const clients: string[] = [];
    for (const candidate of CLIENT_CONFIGS) if (await found(candidate)) clients.push(candidate);
    const named = clients.map((file) => `"${file}"`).join(", ");
    const hint = clients.length === 0
      ? ""
      : clients.length === 1
      ? `; ${named} is an MCP client's config: use it as it is with --config ${clients[0]}`
      : `; ${named} are MCP clients' configs: use one as it is, e.g. --config ${clients[0]}`;
    throw new UsageError(
      `No config: there is no ${DEFAULT_CONFIG} in this folder and no --config was given${hint}. ` +
        `Run "toolroute init" to write a starter ${DEFAULT_CONFIG}, pass --config FILE (an MCP ` +
        `client's config works as it is: claude_desktop_config.json, .cursor/mcp.json, ` +
        `.vscode/mcp.json), or --workspace DIR to serve the file tools of a folder`,
    );
  }
  return await loadConfig(path, { workspace, ...options });
}

/** MCP clients' project configs a user may have in the current folder. */
const CLIENT_CONFIGS = [".vscode/mcp.json", ".cursor/mcp.json", ".mcp.json", "mcp.json"];
