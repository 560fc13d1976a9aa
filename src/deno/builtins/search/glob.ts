import { z } from "zod";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { compileGlob } from "./glob_pattern.ts";
import { SearchBudget } from "./search_budget.ts";
import { listFiles, type SearchAccess } from "./search_access.ts";
import { resolveSearchTarget } from "./search_target.ts";
import { pathSubjects } from "../paths/path_subjects.ts";

/** The default of `glob`'s `maxResults`. */
export const GLOB_MAX_RESULTS = 500;

const schema = z.object({
  pattern: z.string().describe(
    'The glob, relative to path: "**/*.ts", "src/*", "*.{js,json}", "[ab]?.md" (no extglob)',
  ),
  path: z.string().optional().describe(
    "The folder to search, relative to the workspace (default: the workspace)",
  ),
  maxResults: z.number().int().min(1).optional().describe(
    `Most paths to return (default ${GLOB_MAX_RESULTS})`,
  ),
  includeIgnored: z.boolean().optional().describe("Also list files that .gitignore excludes"),
});
type GlobArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "glob");

/** What `glob` returns, JSON-encoded. */
export interface GlobResult {
  /** The matching files, relative to the workspace (absolute in a read-only root), in walk order. */
  paths: string[];
  /** Whether more files matched than were returned (`maxResults` or the output limit). */
  truncated: boolean;
}

/**
 * Creates the `glob` tool bound to one context: lists the regular files whose path, relative to
 * the search folder, matches a glob (`**` across folders, `*` and `?` within a name, `[abc]`,
 * `{a,b}`; no extglob, and matching is linear: see `compileGlob`). Depth-first, each folder's
 * entries in code-point order of their names. Never enters `.git` or a symbolic link, skips what
 * `.gitignore` files exclude unless `includeIgnored`, and stops at the call's deadline (at most
 * `commandTimeoutMs`) and at `outputMaxChars` of output.
 *
 * Requires `allow-read` permission for the workspace and the read-only roots (and `allow-run` for
 * `bwrap` when bash is sandboxed: the listing then runs in the context's sandbox session).
 *
 * @tags allow-read, allow-run
 * @param access How the context's searches reach the files (chosen in `builtin_tools.ts`).
 */
export function createGlobTool(ctx: ResolvedContext, access: SearchAccess): RoutedTool {
  return Object.freeze({
    name: "glob",
    description:
      `Finds files by name pattern in the workspace${
        ctx.readOnlyRoots.length > 0 ? " or a read-only root" : ""
      }. pattern is a glob relative to path (default: the workspace): "**/*.ts" (any depth), ` +
      '"src/*" (one level), "*.{js,json}"; no extglob such as !(x). Returns JSON { paths, ' +
      "truncated }: files only, " +
      "relative to the workspace, in path order (each folder's entries sorted by name), at most " +
      `maxResults (default ${GLOB_MAX_RESULTS}). Skips .git, symbolic links and what .gitignore ` +
      "excludes (includeIgnored: true lists those too).",
    inputSchema: input.jsonSchema,
    annotations: Object.freeze({ readOnlyHint: true, openWorldHint: false }),
    source: "builtin" as const,
    origin: "glob",
    policySubjects: (args: Record<string, unknown>) => pathSubjects(args, { searched: true }),
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      glob(ctx, access, input.parse(args, "glob") as GlobArgs, context.signal),
  });
}

async function glob(
  ctx: ResolvedContext,
  access: SearchAccess,
  args: GlobArgs,
  signal: AbortSignal,
): Promise<GlobResult> {
  const matcher = compileGlob(args.pattern, "pattern");
  const target = resolveSearchTarget(ctx, args.path, { folderOnly: true });
  const budget = new SearchBudget(signal, ctx.commandTimeoutMs, ctx.outputMaxChars);
  const max = args.maxResults ?? GLOB_MAX_RESULTS;
  const paths: string[] = [];
  const prefix = target.start === "" ? 0 : target.start.length + 1;
  const stopped = await listFiles(access, target, {
    gitignore: args.includeIgnored !== true,
    maxDepth: matcher.maxDepth,
    only: matcher.base,
    name: matcher.name,
    budget,
    onFile: (path) => {
      if (!matcher.test(path.slice(prefix))) return false;
      const shown = target.display(path);
      // Stop at one more than fits: that one says the list is truncated.
      if (paths.length >= max || !budget.take(shown.length + 3)) return true;
      paths.push(shown);
    },
  });
  return { paths, truncated: stopped };
}
