import { basename, dirname } from "@std/path";
import { jsonPath } from "../mcp/mcp_config_schema.ts";
import { toolrouteConfigSchema } from "./config_schema.ts";
import type { Ask } from "./terminal_approval.ts";
import { UsageError } from "./usage_error.ts";

/** Options of {@linkcode adaptClientConfig}. */
export interface AdaptClientConfigOptions {
  /** Asks a person for an `${input:…}` value; absent when nobody can be asked. */
  ask?: Ask;
  /** `false` leaves `${input:…}` as written (to list flags without asking). */
  inputs?: boolean;
}

/** One of VS Code's `inputs`: a value asked for when a server starts. */
interface VsCodeInput {
  id: string;
  type?: string;
  description?: string;
  password?: boolean;
}

const WORKSPACE_FOLDER = /\$\{workspaceFolder\}/g;
const INPUT = /\$\{input:([^}]+)\}/g;

/**
 * Takes other MCP clients' config files as they are written, before validation:
 *
 * - VS Code's `.vscode/mcp.json` holds `servers` (not `mcpServers`) and `inputs`: a file with
 *   `servers` and neither `mcpServers` nor a key of `toolroute.json` is read as such.
 * - `${workspaceFolder}` (VS Code) is the folder the config belongs to: the one holding `.vscode`
 *   for `.vscode/mcp.json`, else the file's own folder. It is replaced in every string of every
 *   server entry, since VS Code expands it in `command`, `args` and `cwd` too.
 * - `${input:ID}` (VS Code) is asked for on the terminal, once per ID, with the input's
 *   description; where nobody can be asked it is refused, naming the input and where it is used.
 *   The `env` names and `args` it fills are secrets (`secretEnv`, `secretArgs`), as VS Code's
 *   inputs usually are.
 *
 * Cursor's `${env:NAME}` is expanded with `${NAME}` by the config loader itself.
 *
 * @param path The file's absolute path.
 * @param options How to ask for inputs.
 * @returns The value to validate (the same object when nothing applies).
 */
export async function adaptClientConfig(
  value: unknown,
  path: string,
  options: AdaptClientConfigOptions = {},
): Promise<unknown> {
  if (!isRecord(value)) return value;
  let file: Record<string, unknown> = value;
  if (file.mcpServers === undefined && isRecord(file.servers) && !hasToolrouteKeys(file)) {
    const { servers, inputs: _inputs, ...rest } = file;
    file = { ...rest, mcpServers: servers };
  }
  if (!isRecord(file.mcpServers)) return file;
  const folder = basename(dirname(path)) === ".vscode" ? dirname(dirname(path)) : dirname(path);
  const inputs = Array.isArray(value.inputs) ? value.inputs.filter(isInput) : [];
  const answers = new Map<string, string>();
  const servers: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(file.mcpServers)) {
    if (!isRecord(entry) || entry.disabled === true) {
      servers[id] = entry;
      continue;
    }
    const secret = new Set<string>();
    const secretArgs = new Set<number>();
    const replace = async (text: string, at: PropertyKey[]): Promise<string> => {
      let out = text.replace(WORKSPACE_FOLDER, () => folder);
      if (options.inputs === false) return out;
      for (const [, name] of [...out.matchAll(INPUT)]) {
        const answer = answers.get(name) ??
          await askInput(name, inputs, { path, at: ["servers", id, ...at], ask: options.ask });
        answers.set(name, answer);
        out = out.replaceAll(`\${input:${name}}`, answer);
        if (at[0] === "env" && typeof at[1] === "string") secret.add(at[1]);
        if (at[0] === "args" && at.length === 2 && typeof at[1] === "number") {
          secretArgs.add(at[1]);
        }
      }
      return out;
    };
    const adapted = await mapStrings(entry, [], replace) as Record<string, unknown>;
    for (const [field, added] of [["secretEnv", secret], ["secretArgs", secretArgs]] as const) {
      if (added.size === 0) continue;
      const listed = Array.isArray(adapted[field]) ? adapted[field] : [];
      adapted[field] = [...new Set([...listed, ...added])];
    }
    servers[id] = adapted;
  }
  return { ...file, mcpServers: servers };
}

async function askInput(
  name: string,
  inputs: readonly VsCodeInput[],
  where: {
    path: string;
    at: PropertyKey[];
    ask: AdaptClientConfigOptions["ask"];
  },
): Promise<string> {
  const input = inputs.find((each) => each.id === name);
  const used = `used at ${jsonPath(where.at)} in "${where.path}"`;
  if (input === undefined) {
    throw new UsageError(
      `Config "${where.path}" uses \${input:${name}} (${used.slice(5)}), but its "inputs" has no ` +
        `entry with id "${name}"; add one, or write the value or \${env:NAME} in its place`,
    );
  }
  const described = input.description ? ` (${input.description})` : "";
  if (where.ask === undefined) {
    throw new UsageError(
      `Config "${where.path}" asks for input "${name}"${described}, ${used}, and nobody can be ` +
        `asked here (stdin is not a terminal): put the value in an environment variable and ` +
        `write \${env:NAME} in place of \${input:${name}}, or run toolroute on a terminal`,
    );
  }
  // VS Code hides a `password` input as it is typed; so does the terminal here.
  const answer = await where.ask(`toolroute: input "${name}"${described}: `, {
    hidden: input.password === true,
  });
  if (answer === null || answer === "") {
    throw new UsageError(`No value was given for input "${name}"${described}, ${used}`);
  }
  return answer;
}

async function mapStrings(
  value: unknown,
  at: PropertyKey[],
  replace: (text: string, at: PropertyKey[]) => Promise<string>,
): Promise<unknown> {
  if (typeof value === "string") return await replace(value, at);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const [index, item] of value.entries()) {
      items.push(await mapStrings(item, [...at, index], replace));
    }
    return items;
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: await mapStrings(item, [...at, key], replace),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function isInput(value: unknown): value is VsCodeInput {
  return isRecord(value) && typeof value.id === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The names that make a file a `toolroute.json`, whatever its content. */
const TOOLROUTE_FILES = ["toolroute.json", "toolroute.jsonc"];

/**
 * Takes an MCP client's config file as it is: Claude Desktop's `claude_desktop_config.json`,
 * Cursor's and Cline's `mcp.json` hold `mcpServers` next to keys of their own (`globalShortcut`,
 * `preferences`, …) that toolroute has no use for.
 *
 * A file is read as such when it is not named `toolroute.json(c)`, has `mcpServers`, and has no
 * key of `toolroute.json` besides `mcpServers` and `$schema`: then its other keys are dropped and
 * named in one warning line. Any other file stays strict, so a misspelt `toolroute.json` key is
 * still an error.
 *
 * @param path The file's path, when read from a file.
 * @param options `onWarning` receives the warning line.
 * @returns The value to validate.
 */
export function dropMcpClientKeys(
  value: unknown,
  path: string | undefined,
  options: { onWarning?: (line: string) => void },
): unknown {
  if (path === undefined || TOOLROUTE_FILES.includes(basename(path).toLowerCase())) return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (!keys.includes("mcpServers") || hasToolrouteKeys(value)) return value;
  const known = Object.keys(toolrouteConfigSchema.shape);
  const ignored = keys.filter((key) => !known.includes(key)).map((key) => `"${key}"`);
  if (ignored.length > 0) {
    options.onWarning?.(
      `warning: ignoring ${ignored.join(", ")} in "${path}": read as an MCP client's config ` +
        `(Claude Desktop, Cursor, Cline), of which toolroute uses only "mcpServers"`,
    );
  }
  return Object.fromEntries(Object.entries(value).filter(([key]) => known.includes(key)));
}

/** Whether a file has a key of `toolroute.json` besides `mcpServers` and `$schema`. */
function hasToolrouteKeys(file: object): boolean {
  return Object.keys(toolrouteConfigSchema.shape)
    .some((key) => key !== "mcpServers" && key !== "$schema" && Object.hasOwn(file, key));
}
