import type { PolicySubjects } from "../../../core/tool_source.ts";

/**
 * What path specifiers read in a call of a tool with one `path` argument (`read_file`,
 * `write_file`, `edit`; `glob` and `grep` with `searched`: the folder searched, the workspace
 * when `path` is absent). Throws, and the policy fails closed, for a `path` that is not a string.
 *
 * @param options `searched`: `path` is a folder searched (optional, default the workspace).
 * @returns The path, as the model wrote it.
 */
export function pathSubjects(
  args: Record<string, unknown>,
  options: { searched?: boolean } = {},
): PolicySubjects {
  const path = args.path ?? (options.searched === true ? "." : undefined);
  if (typeof path !== "string") throw new TypeError('"path" must be a string');
  return { kind: "paths", paths: [path], searched: options.searched };
}
