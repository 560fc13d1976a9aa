import { buildRouter, checkUser, describeMissing } from "./build_router.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";

/**
 * `toolroute tools`: prints the exposed tools as a table (name, source, shadowed-by) or JSON.
 *
 * @param io Output.
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
  if (flags.json === true) {
    io.out(JSON.stringify(
      { tools: toolSet.toMcp(), shadowed: toolSet.shadowed, missing: toolSet.missing },
      null,
      2,
    ));
    return 0;
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
  return 0;
}
