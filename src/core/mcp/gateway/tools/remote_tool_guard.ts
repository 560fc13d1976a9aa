import type { MissingTool } from "../../../tool_source.ts";
import { isTooDeepTool } from "../../list_all_tools.ts";
import { MAX_REMOTE_DEPTH } from "../../remote_depth.ts";
import { escapeUnsafeChars, hasUnsafeChars, safeRemoteText } from "./remote_text.ts";
import { mapJsonStrings } from "../../../json_strings.ts";

/** Bounds on what one remote server's tool list may put in front of a model. */
export interface RemoteTextLimits {
  /** Most characters of a tool's description, and of each description in its schemas. */
  readonly maxDescriptionChars: number;
  /** Most characters of one server's whole tool list (names, descriptions, schemas) as JSON. */
  readonly maxToolListChars: number;
}

/** The defaults: 4,096 characters per description, 262,144 per server's tool list. */
export const REMOTE_TEXT_DEFAULTS: RemoteTextLimits = Object.freeze({
  maxDescriptionChars: 4_096,
  maxToolListChars: 262_144,
});

/** A remote tool as the server lists it (the fields toolroute passes on). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  /** Metadata for clients (MCP Apps' `ui`, vendor keys). */
  _meta?: unknown;
  /** Icons for clients. */
  icons?: unknown;
}

/**
 * Makes one server's tool list safe to show a model: a tool whose name holds a control or bidi
 * character is refused (reported); descriptions and titles (also inside the schemas and
 * annotations) are escaped and capped with a visible marker, every string of `_meta` and `icons`
 * escaped; tools beyond the list bound are dropped (reported once).
 *
 * @param serverId The server id, for the reports.
 * @param tools The tools as listed.
 * @param options The bounds (`limits`).
 * @returns The guarded tools, in list order, and what was refused.
 */
export function guardRemoteTools<T extends ListedTool>(
  serverId: string,
  tools: readonly T[],
  options: { limits?: RemoteTextLimits } = {},
): { tools: T[]; refused: MissingTool[] } {
  const { limits = REMOTE_TEXT_DEFAULTS } = options;
  const kept: T[] = [];
  const refused: MissingTool[] = [];
  let total = 0;
  let dropped = 0;
  let firstDropped = "";
  for (const tool of tools) {
    if (hasUnsafeChars(tool.name)) {
      refused.push({
        selection: "mcpServers",
        name: serverId,
        reason: `tool "${
          escapeUnsafeChars(tool.name)
        }" refused: its name contains control or bidi characters`,
      });
      continue;
    }
    let safe: T;
    try {
      // Listing put a stand-in for a tool too deep to walk (see `isTooDeepTool`).
      if (isTooDeepTool(tool)) throw new TooDeep();
      safe = safeTool(tool, limits);
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
      refused.push({
        selection: "mcpServers",
        name: serverId,
        reason:
          `tool "${tool.name}" refused: its schemas or annotations are nested deeper than ${MAX_REMOTE_DEPTH} levels, too deep to check their descriptions`,
      });
      continue;
    }
    const size = jsonLength(safe);
    if (dropped > 0 || total + size > limits.maxToolListChars) {
      if (dropped++ === 0) firstDropped = tool.name;
      continue;
    }
    total += size;
    kept.push(safe);
  }
  if (dropped > 0) {
    refused.push({
      selection: "mcpServers",
      name: serverId,
      reason:
        `${dropped} tools from "${firstDropped}" on dropped: the server's tool list is over ${limits.maxToolListChars} characters`,
    });
  }
  return { tools: kept, refused };
}

/** The tool with its title and descriptions, at any depth of its schemas, escaped and capped. */
function safeTool<T extends ListedTool>(tool: T, limits: RemoteTextLimits): T {
  const max = limits.maxDescriptionChars;
  const safe: ListedTool = { ...tool };
  if (tool.title !== undefined) safe.title = safeRemoteText(tool.title, max);
  if (tool.description !== undefined) safe.description = safeRemoteText(tool.description, max);
  for (const key of ["inputSchema", "outputSchema", "annotations"] as const) {
    if (tool[key] !== undefined) safe[key] = safeTexts(tool[key], limits, 0);
  }
  // Passed on to serve's clients, which show parts of them to the person (an icon's title, an
  // app's "invoking…" text): every string and key escaped.
  for (const key of ["_meta", "icons"] as const) {
    if (tool[key] !== undefined) safe[key] = mapJsonStrings(tool[key], ESCAPE_ALL);
  }
  return safe as T;
}

/** Thrown past the depth bound: the tool is refused, not passed on. */
class TooDeep extends Error {}

/** Every string and key escaped, at any depth (one level more than a result's). */
const ESCAPE_ALL = {
  map: escapeUnsafeChars,
  depth: 0,
  max: MAX_REMOTE_DEPTH,
  tooDeep: () => {
    throw new TooDeep();
  },
};

const TEXT_KEYS = new Set(["description", "title"]);

/**
 * Escapes and caps every `description` and `title` string inside a schema, at any depth; throws
 * `TooDeep` past {@linkcode MAX_REMOTE_DEPTH} rather than leave deeper ones as they are.
 */
function safeTexts(value: unknown, limits: RemoteTextLimits, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_REMOTE_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return value.map((item) => safeTexts(item, limits, depth + 1));
  // `fromEntries` defines own properties: a schema's own "__proto__" key stays a key (an
  // assignment would set the copy's prototype on runtimes that keep the setter, as workerd does).
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      TEXT_KEYS.has(key) && typeof item === "string"
        ? safeRemoteText(item, limits.maxDescriptionChars)
        : safeTexts(item, limits, depth + 1),
    ]),
  );
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
