import { buildRouter, checkUser } from "./build_router.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import { UsageError } from "./usage_error.ts";
import type { ParsedArgs } from "./parse_args.ts";
import { terminalApprover } from "./terminal_approval.ts";
import { openStore, storeLocation } from "./store_location.ts";
import { callServers } from "./call_servers.ts";
import { startProgress } from "./start_progress.ts";

/**
 * `toolroute call NAME ARGS`: calls one exposed tool and prints its result.
 *
 * @param parsed The flags, and the positionals: the tool name and its JSON arguments.
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
  await using opened = storeAt === undefined
    ? undefined
    : await openStore(storeAt, (line) => io.err(`toolroute: ${line}`));
  // No server starts until the name is placed: a built-in or module tool needs none, a remote
  // one only its server (from the lock or its prefix), and only a name placed nowhere all.
  let only: readonly string[] | undefined = [];
  await using served = await buildRouter(config, {
    approve,
    store: opened?.store,
    listWaitMs: Infinity,
    onlyServers: () => only,
    onGatewayEvent: startProgress(io),
  });
  let toolSet = await served.expose(userId);
  const ownServers = config.users.some((user) =>
    user.id === userId && Object.keys(user.mcpServers).length > 0
  );
  // A user's own server's tool outranks a module's tool of the same name (never a built-in's).
  const local = toolSet.has(name) && (!ownServers || toolSet.sourceOf(name) === "builtin");
  let called = name;
  if (!local) {
    const placed = await callServers(config, { name, userId });
    only = placed?.servers;
    toolSet = await served.expose(userId);
    // `server_tool` names the tool of that server; alone, it keeps its own name.
    const alias = placed?.alias;
    const remote = (source: string | undefined) => source === "global_mcp" || source === "user_mcp";
    if (!toolSet.has(name) && alias !== undefined && remote(toolSet.sourceOf(alias))) {
      called = alias;
    }
  }
  const call = () =>
    toolSet.call(called, args, {
      timeoutMs,
      onProgress: (progress) =>
        io.err(`toolroute: progress ${progress.message ?? progress.progress}`),
    });
  let result = await call();
  if (result.code === "unknown_tool" && only !== undefined && !local) {
    // Placed wrongly (a lock older than the servers): the tool never ran, so ask every server.
    only = undefined;
    called = name;
    toolSet = await served.expose(userId);
    result = await call();
  }
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
