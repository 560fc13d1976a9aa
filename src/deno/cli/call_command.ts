import { buildRouter, checkUser } from "./build_router.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import { UsageError } from "./usage_error.ts";
import type { ParsedArgs } from "./parse_args.ts";
import { terminalApprover } from "./terminal_approval.ts";
import { openStore, storeLocation } from "./store_location.ts";
import { servedStore } from "./served_store.ts";

/**
 * `toolroute call NAME ARGS`: calls one exposed tool and prints its result.
 *
 * @param parsed The flags, and the positionals: the tool name and its JSON arguments.
 * @param io Output.
 * @returns 0 for a result, 1 for an error result.
 */
export async function callCommand(
  parsed: ParsedArgs,
  io: CliIo,
): Promise<number> {
  const { flags, positionals } = parsed;
  const [name, args = "{}", ...rest] = positionals;
  if (name === undefined) {
    throw new UsageError('Missing the tool name; see "toolroute call --help"');
  }
  if (rest.length > 0) {
    throw new UsageError(
      `Too many arguments: ${
        rest.map((arg) => `"${arg}"`).join(" ")
      }; pass the JSON arguments as one quoted argument`,
    );
  }
  const timeoutMs = typeof flags.timeout === "string" ? Number(flags.timeout) : undefined;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError(
      `"--timeout" must be a positive number of milliseconds, received "${flags.timeout}"`,
    );
  }
  const config = await configFromFlags(flags, {
    ask: io.ask,
    onWarning: (line) => io.err(`toolroute: ${line}`),
  });
  const userId = checkUser(config, typeof flags.user === "string" ? flags.user : undefined);
  const approve = io.ask === undefined ? undefined : terminalApprover(io.ask);
  // With --store, the grants, approvals and limit counts are serve's (the same file or server).
  const storeAt = storeLocation(flags.store);
  await using opened = storeAt === undefined ? undefined : await openStore(storeAt);
  await using served = await buildRouter(config, {
    approve,
    store: opened === undefined ? undefined : servedStore(opened.store, {
      name: opened.name,
      warn: (line) => io.err(`toolroute: ${line}`),
    }),
  });
  const toolSet = await served.expose(userId);
  const result = await toolSet.call(name, args, {
    timeoutMs,
    onProgress: (progress) =>
      io.err(`toolroute: progress ${progress.message ?? progress.progress}`),
  });
  if (result.code === "approval_required") {
    io.err(
      `toolroute: refusing to call "${name}": the policy asks for approval (rule ${
        JSON.stringify(result.approval?.rule)
      }) and stdin is not a terminal, so nobody can be asked; run it on a terminal or allow it in the config's policy`,
    );
  }
  io.out(result.text);
  if (result.code === "unknown_tool") {
    // The tool may belong to a server that could not be reached: say which, and why.
    for (const entry of toolSet.missing) {
      if (entry.selection !== "mcpServers") continue;
      io.err(
        `toolroute: MCP server "${entry.name}" is not available, so its tools are not listed: ${entry.reason}`,
      );
    }
  }
  return result.isError ? 1 : 0;
}
