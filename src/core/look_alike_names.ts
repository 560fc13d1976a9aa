import { toApiFunctionName } from "./api_function_name.ts";
import { type RoutedTool, serverOf } from "./tool_source.ts";

/**
 * The name a lower-priority tool gets when its name equals a higher one's ignoring case (a remote
 * `Read_File` next to the built-in `read_file`): qualified by where it comes from (the server id
 * of a remote tool, the service of a local MCP tool, else its source kind), with a `_2`, `_3`, … suffix until no selected tool's
 * name equals it ignoring case.
 *
 * @param tool The lower-priority tool.
 * @param taken Lower-cased names already used or offered by any selected source.
 */
export function qualifiedLookAlikeName(tool: RoutedTool, taken: ReadonlySet<string>): string {
  const base = toApiFunctionName(serverOf(tool) || tool.source, tool.name);
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2;; n++) {
    const suffix = `_${n}`;
    const candidate = base.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
