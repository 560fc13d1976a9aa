import { basename } from "@std/path";
import { toolrouteConfigSchema } from "./config_schema.ts";

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
export function hasToolrouteKeys(file: object): boolean {
  return Object.keys(toolrouteConfigSchema.shape)
    .some((key) => key !== "mcpServers" && key !== "$schema" && Object.hasOwn(file, key));
}
