import { basename, dirname, join, relative, resolve } from "@std/path";
import type { CliIo } from "./cli_io.ts";
import { DEFAULT_CONFIG } from "./cli_io.ts";
import { UsageError } from "./usage_error.ts";
import { configSchemaText } from "./write_config_schema.ts";

/** The schema file written beside the config, which its `$schema` names. */
export const SCHEMA_FILE = "toolroute.schema.json";

/**
 * The text of a starter `toolroute.json`: the file tools of a workspace, no MCP server yet, and
 * a `$schema` that editors resolve offline (a relative path to the schema written beside it).
 *
 * @param workspace The workspace, relative to the config's folder.
 * @returns The file's text (JSON with comments).
 */
export function starterConfig(workspace: string): string {
  return `{
  // Editors complete and check this file against the schema beside it.
  "$schema": "./${SCHEMA_FILE}",
  // The folder the file tools may read and write, relative to this file.
  "workspace": ${JSON.stringify(workspace)},
  // The built-ins served. "bash" also needs "bash": true (and bubblewrap for its sandbox).
  "expose": {
    "builtins": ["read_file", "write_file", "apply_patch", "edit", "glob", "grep"]
  },
  // MCP servers, written as in Claude Desktop's config: { "name": { "command", "args", "env" } }
  // or { "name": { "url", "headers" } }. \${VAR} and \${env:VAR} are read from the environment.
  "mcpServers": {}
}
`;
}

/**
 * `toolroute init`: writes a starter `toolroute.json` (or `--config FILE`) and the config schema
 * beside it, and says what to run next. Never overwrites a config.
 *
 * @tags allow-read, allow-write
 * @param flags `--config` (the file to write) and `--workspace` (its workspace, default `.`).
 */
export async function initCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  const path = resolve(typeof flags.config === "string" ? flags.config : DEFAULT_CONFIG);
  const folder = dirname(path);
  const workspace = typeof flags.workspace === "string"
    ? relative(folder, resolve(flags.workspace)) || "."
    : ".";
  const schema = join(folder, SCHEMA_FILE);
  // A new project's folders are made (`--config app/toolroute.json --workspace app/src`); the
  // config file itself is still created only where none is.
  await makeFolder(folder, path);
  await makeFolder(resolve(folder, workspace), path);
  await checkSchemaPath(schema);
  try {
    await Deno.writeTextFile(path, starterConfig(workspace), { createNew: true });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new UsageError(
        `"${path}" already exists; toolroute init never overwrites a config (edit it, or pass ` +
          `--config FILE to write another)`,
      );
    }
    throw cannotWrite(path, folder, error);
  }
  await Deno.writeTextFile(schema, configSchemaText());
  const config = basename(path) === DEFAULT_CONFIG && folder === resolve(".")
    ? ""
    : ` --config ${path}`;
  io.out(`Wrote ${path} and ${join(folder, SCHEMA_FILE)} (its $schema, for editors).`);
  io.out(
    `Next: "toolroute tools${config}" lists what it serves; "toolroute flags${config}" ` +
      `prints the deno run flags for "toolroute serve${config}".`,
  );
  return 0;
}

/** Makes a folder and the folders above it, or says why it cannot. */
async function makeFolder(folder: string, path: string): Promise<void> {
  try {
    await Deno.mkdir(folder, { recursive: true });
  } catch (error) {
    throw cannotWrite(path, folder, error);
  }
}

function cannotWrite(path: string, folder: string, error: unknown): UsageError {
  if (error instanceof Deno.errors.NotCapable) {
    return new UsageError(`Cannot write "${path}": add --allow-write=${folder}`);
  }
  return new UsageError(`Cannot write "${path}" (in "${folder}"): ${(error as Error).message}`);
}

/**
 * Refuses a schema path that is not a regular file: the schema replaces an older one, but never
 * through a symbolic link or onto something else of that name (a cloned repository could hold a
 * link pointing at a file of the user's, which the write would overwrite).
 */
async function checkSchemaPath(path: string): Promise<void> {
  const existing = await Deno.lstat(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  });
  if (existing !== undefined && !existing.isFile) {
    throw new UsageError(
      `"${path}" exists and is not a regular file (a symbolic link or a folder); remove it and ` +
        `run toolroute init again to write the config schema there`,
    );
  }
}
