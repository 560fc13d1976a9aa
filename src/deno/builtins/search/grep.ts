import { z } from "zod";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { compileFileFilter } from "./glob_pattern.ts";
import {
  compilePattern,
  type LineMatch,
  MAX_LINE_CHARS,
  PATTERN_SYNTAX,
  searchLines,
} from "./line_search.ts";
import { LongLineMatcher } from "./long_line_matcher.ts";
import { LiteralFinder } from "../../sandbox/supervisor/literal_finder.ts";
import { SearchBudget } from "./search_budget.ts";
import { listFiles, type SearchAccess } from "./search_access.ts";
import { resolveSearchTarget } from "./search_target.ts";
import { pathSubjects } from "../paths/path_subjects.ts";

/** The default of `grep`'s `maxResults`. */
export const GREP_MAX_RESULTS = 100;

const schema = z.object({
  pattern: z.string().min(1).describe(PATTERN_SYNTAX),
  path: z.string().optional().describe(
    "The folder or file to search, relative to the workspace (default: the workspace)",
  ),
  glob: z.string().optional().describe(
    'Only files matching this glob: "*.ts" (name, any depth) or "src/**/*.ts"',
  ),
  ignoreCase: z.boolean().optional().describe("Match regardless of case"),
  maxResults: z.number().int().min(1).optional().describe(
    `Most matching lines to return (default ${GREP_MAX_RESULTS})`,
  ),
  includeIgnored: z.boolean().optional().describe("Also search files that .gitignore excludes"),
});
type GrepArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "grep");

/** One matching line of `grep`. */
export interface GrepMatch {
  /** The file, relative to the workspace (absolute in a read-only root). */
  path: string;
  /** The line number, 1-based. */
  line: number;
  /** The line, without its line ending; longer than 500 characters it is cut, with a marker. */
  text: string;
}

/** What `grep` returns, JSON-encoded. */
export interface GrepResult {
  /** The matching lines, by file in path order, then by line. */
  matches: GrepMatch[];
  /** Whether there were more matches than returned (`maxResults` or the output limit). */
  truncated: boolean;
}

/**
 * Creates the `grep` tool bound to one context: searches text files for a regular expression
 * (RE2 syntax, matched in linear time: see {@linkcode compilePattern}), line by line. Files are visited like `glob` visits them (path order; never `.git`,
 * symbolic links or what `.gitignore` excludes unless `includeIgnored`); binary files (a NUL
 * byte) and files over 16 MiB are skipped. Stops at `maxResults` lines, the call's deadline (at
 * most `commandTimeoutMs`) and `outputMaxChars` of output.
 *
 * Requires `allow-read` permission for the workspace and the read-only roots (and `allow-run` for
 * `bwrap` when bash is sandboxed: the search then runs in the context's sandbox session).
 *
 * @tags allow-read, allow-run
 * @param access How the context's searches reach the files (chosen in `builtin_tools.ts`).
 */
export function createGrepTool(ctx: ResolvedContext, access: SearchAccess): RoutedTool {
  return Object.freeze({
    name: "grep",
    description:
      `Searches file contents in the workspace${
        ctx.readOnlyRoots.length > 0 ? " or a read-only root" : ""
      } for a regular expression, line by line. pattern: RE2 syntax, linear time (\\d \\w \\s ` +
      "\\b [a-z] (a|b) a{2,3} (?i) work; no lookahead, lookbehind or backreferences; at most " +
      "1000 characters); a line over 64 KiB (less for a large expression) is matched on its " +
      "start. path: a folder or file (default: the " +
      'workspace); glob filters files ("*.ts" by name, "src/**/*.ts" by path); ignoreCase. ' +
      "Returns JSON { matches: [{ path, line, text }], truncated }, by file in path order, at " +
      `most maxResults lines (default ${GREP_MAX_RESULTS}). Skips binary files, .git, symbolic ` +
      "links and what .gitignore excludes (includeIgnored: true searches those too).",
    inputSchema: input.jsonSchema,
    annotations: Object.freeze({ readOnlyHint: true, openWorldHint: false }),
    source: "builtin" as const,
    origin: "grep",
    policySubjects: (args: Record<string, unknown>) => pathSubjects(args, { searched: true }),
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      grep(ctx, access, input.parse(args, "grep") as GrepArgs, context.signal),
  });
}

async function grep(
  ctx: ResolvedContext,
  access: SearchAccess,
  args: GrepArgs,
  signal: AbortSignal,
): Promise<GrepResult> {
  const pattern = compilePattern(args.pattern, args.ignoreCase === true);
  const filter = args.glob === undefined ? undefined : compileFileFilter(args.glob);
  const target = resolveSearchTarget(ctx, args.path);
  const budget = new SearchBudget(signal, ctx.commandTimeoutMs, ctx.outputMaxChars);
  const max = args.maxResults ?? GREP_MAX_RESULTS;
  let files: string[] = [target.start];
  if (target.kind === "dir") {
    files = [];
    const prefix = target.start === "" ? 0 : target.start.length + 1;
    await listFiles(access, target, {
      gitignore: args.includeIgnored !== true,
      budget,
      onFile: (path) => {
        if (filter === undefined || filter(path.slice(prefix))) files.push(path);
      },
    });
  }
  const matches: GrepMatch[] = [];
  let truncated = false;
  const decoder = new TextDecoder();
  const finder = pattern.literal === undefined ? undefined : new LiteralFinder(pattern.literal);
  const pause = () => budget.tick();
  // The budget's pause throws at the deadline: it never asks to give up otherwise.
  const unstopped = () => pause().then(() => false);
  // Lines too long for one short step on the event loop are matched in a worker, for this call.
  using longLines = pattern.expression === undefined
    ? undefined
    : new LongLineMatcher(pattern.expression, MAX_LINE_CHARS);
  const longLine = longLines === undefined
    ? undefined
    : (line: string) => longLines.match(line, budget);
  await access.read(
    target.root,
    { files, budget, literal: pattern.literal },
    async (path, data) => {
      if (data === undefined) return false;
      if (finder !== undefined && !await finder.containsPaused(data, unstopped)) return false;
      if (data.includes(0)) return false;
      const found: LineMatch[] = await searchLines(decoder.decode(data), pattern, {
        limit: max + 1 - matches.length,
        pause,
        longLine,
      });
      const shown = target.display(path);
      for (const match of found) {
        const result = { path: shown, line: match.line, text: match.text };
        if (matches.length >= max || !budget.take(JSON.stringify(result).length + 1)) {
          truncated = true;
          return true;
        }
        matches.push(result);
      }
    },
  );
  return { matches, truncated };
}
