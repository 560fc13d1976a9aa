import { buildRouter, checkUser, describeMissing } from "./build_router.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";

/**
 * `toolroute tools`: prints the exposed tools as a table (name, source, shadowed-by) or JSON.
 * When the config names MCP servers and none of them could be reached, it still prints what it
 * has (the other tools, and why each server is missing) and exits 1: a script that checks the
 * setup must not read "every server is down" as success.
 *
 * @returns The exit code: 0, or 1 when every configured MCP server is unreachable.
 */
export async function toolsCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  const config = await configFromFlags(flags, {
    ask: io.ask,
    onWarning: (line) => io.err(`toolroute: ${line}`),
  });
  const userId = checkUser(config, typeof flags.user === "string" ? flags.user : undefined);
  // A listing for a person: every server gets its whole connect deadline.
  await using served = await buildRouter(config, { listWaitMs: Infinity });
  const toolSet = await served.expose(userId);
  const servers = new Set([
    ...Object.keys(config.mcpServers),
    ...Object.keys(config.users.find((user) => user.id === userId)?.mcpServers ?? {}),
  ]);
  const unreachable = new Set(
    toolSet.missing
      .filter((entry) => entry.selection === "mcpServers" && servers.has(entry.name))
      .map((entry) => entry.name),
  );
  const code = servers.size > 0 && unreachable.size === servers.size ? 1 : 0;
  if (flags.json === true) {
    io.out(JSON.stringify(
      { tools: toolSet.toMcp(), shadowed: toolSet.shadowed, missing: toolSet.missing },
      null,
      2,
    ));
    return code;
  }
  const rows: string[][] = [["NAME", "SOURCE", "SHADOWED-BY"]];
  for (const name of toolSet.names) rows.push([name, toolSet.sourceOf(name) ?? "-", "-"]);
  for (const entry of toolSet.shadowed) {
    for (const hidden of entry.hidden) rows.push([entry.name, hidden, entry.winner]);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) {
    io.out(row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd());
  }
  for (const line of describeMissing(toolSet.missing)) io.err(`toolroute: ${line}`);
  if (code !== 0) {
    io.err(
      `toolroute: none of the ${servers.size} configured MCP servers could be reached; ` +
        `see the reasons above, fix the servers (or their entries in the config) and run again`,
    );
  }
  return code;
}
