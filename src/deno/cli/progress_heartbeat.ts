import type {
  BuiltinContext,
  BuiltinRequest,
  BuiltinSource,
  RoutedTool,
} from "../../core/tool_source.ts";

/**
 * Wraps a built-in source so that a `bash` call that runs longer than `intervalMs` reports
 * progress every `intervalMs` (the seconds elapsed), which `serve` turns into MCP progress
 * notifications: clients see a long command is alive instead of a silent wait.
 *
 * @param intervalMs How often to report. Default: 1000.
 * @returns The same source, with `bash` reporting progress.
 */
export function withBashProgress(source: BuiltinSource, intervalMs = 1000): BuiltinSource {
  return {
    names: source.names,
    context: source.context,
    resolve(names: readonly string[], context?: BuiltinContext, request?: BuiltinRequest) {
      // The request (its user) goes through: sessions and background processes are per user.
      const resolved = source.resolve(names, context, request);
      return {
        missing: resolved.missing,
        tools: resolved.tools.map((tool) =>
          tool.name === "bash" ? heartbeat(tool, intervalMs) : tool
        ),
      };
    },
    close: source.close?.bind(source),
  };
}

function heartbeat(tool: RoutedTool, intervalMs: number): RoutedTool {
  // Everything of the tool but `execute` goes on: the policy reads bash's commands through
  // `policySubjects`, and a built-in without it fails every `bash(...)` rule closed.
  return {
    ...tool,
    async execute(args, context) {
      const report = context.onProgress;
      if (report === undefined) return await tool.execute(args, context);
      const started = Date.now();
      let ticks = 0;
      const timer = setInterval(() => {
        ticks++;
        const seconds = Math.round((Date.now() - started) / 1000);
        report({ progress: ticks, message: `bash is still running (${seconds} s)` });
      }, intervalMs);
      try {
        return await tool.execute(args, context);
      } finally {
        clearInterval(timer);
      }
    },
  };
}
