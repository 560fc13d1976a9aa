/**
 * The stdio part of the gateway demo: an `mcp.json` in the Claude Desktop format with a `${VAR}`
 * expanded from an explicit map, a Deno stdio MCP server spawned with `--no-prompt` and no
 * permission (it cannot read this process's files), a crash mid-call that ends the call at once,
 * a respawn on the next call, and a clean close.
 *
 * Needs `allow-run` for the Deno executable, `allow-read` and `allow-write` for a temporary file,
 * and `allow-env` for the few variables a child inherits (`HOME`, `PATH`, `DENO_DIR`, …).
 */
import { ToolRouter } from "../mod.ts";
import { createDenoGateway, loadMcpConfig } from "../src/deno/mod.ts";
import { table } from "./_table.ts";

/** Runs the stdio demo, printing what happens; leaves no process or file behind. */
export async function demoMcpStdio(print: (line: string) => void): Promise<void> {
  const server = new URL("./_stdio_notes_server.ts", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: "toolroute_demo_" });
  const secret = `${dir}/secret.txt`;
  await Deno.writeTextFile(secret, "the host's secret");
  await Deno.writeTextFile(
    `${dir}/mcp.json`,
    JSON.stringify({
      mcpServers: {
        notes: { command: "deno", args: ["run", server], env: { NOTES_OWNER: "${OWNER}" } },
      },
    }),
  );
  // `${VAR}` is expanded in env, headers and url; "deno" is pointed at this Deno binary.
  const servers = await loadMcpConfig(`${dir}/mcp.json`, { env: { OWNER: "alice" } });
  const notes = { ...servers.notes, command: Deno.execPath() };
  print(`mcp.json "notes" after expansion: ${JSON.stringify(servers.notes)}`);

  try {
    await using gateway = createDenoGateway({ servers: { notes } });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["notes"] });
    print(`exposed: ${toolSet.names.join(", ")}`);
    const rows: string[][] = [];
    const call = async (label: string, name: string, args: Record<string, unknown>) => {
      const started = performance.now();
      const result = await toolSet.call(name, args);
      const ms = `${Math.round(performance.now() - started)} ms`;
      rows.push([label, name, result.isError ? `error ${result.code}` : "ok", ms, result.text]);
    };
    await call("a call to the child", "note", { text: "buy milk" });
    await call("the child has no -A", "peek", { path: secret });
    await call("the child crashes mid-call", "crash", {});
    await call("the next call respawns it", "note", { text: "call the bank" });
    await call("a fresh child, empty memory", "notes", {});
    table(print, ["step", "tool", "status", "time", "text for the model"], rows);
    const [status] = gateway.status();
    print(`status: ${status.id} ${status.state}, ${status.tools} tools`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  print("closed: the gateway stopped the child (no process left)");
}

if (import.meta.main) await demoMcpStdio(console.log);
