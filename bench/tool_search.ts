/**
 * Context economy of deferred exposure, measured side by side in one run and printed:
 *
 * 1. 500 tools over 10 servers: the JSON bytes and estimated tokens (characters / 4) of the
 *    definitions a deferred tool set sends, against the eager set (target: at most 5 %).
 * 2. Search quality: labelled requests (`_tool_requests.ts`) against a catalog of 310 tools from
 *    14 servers with near-duplicates (`_tool_catalog.ts`): recall@1 and recall@5 (target: the
 *    right tool in the top 5 for at least 90 %).
 * 3. Search time over 10,000 tools, through `toolSet.call("search_tools")`: median and p99
 *    (target: median under 2 ms).
 *
 * Run: `deno run --config bench/deno.json bench/tool_search.ts`
 *
 * @module
 */
import { ToolSet } from "../mod.ts";
import type { RoutedTool } from "../src/core/tool_source.ts";
import { assignRemoteToolNames } from "../src/core/mcp/gateway/tools/remote_tool_names.ts";
import { CATALOG, type CatalogEntry } from "./_tool_catalog.ts";
import { REQUESTS } from "./_tool_requests.ts";

/** Remote tools as a gateway exposes them: names qualified only where two servers collide. */
function remoteTools(servers: [string, CatalogEntry[]][]): RoutedTool[] {
  const names = assignRemoteToolNames(
    servers.map(([serverId, entries]) => ({ serverId, toolNames: entries.map(([name]) => name) })),
  );
  const byServer = new Map(servers);
  return [...names].map(([name, { serverId, toolName }]) => {
    const [, description, parameters] = byServer.get(serverId)!.find(([n]) => n === toolName)!;
    return remoteTool(name, serverId, toolName, description, parameters);
  });
}

function remoteTool(
  name: string,
  serverId: string,
  toolName: string,
  description: string,
  parameters: string,
): RoutedTool {
  const keys = parameters === "" ? [] : parameters.split(",");
  return {
    name,
    description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(keys.map((key) => [key, {
        type: "string",
        description: `The ${
          key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase()
        }`,
      }])),
      required: keys.slice(0, 1),
    },
    source: "global_mcp",
    origin: `${serverId}/${toolName}`,
    execute: () => "",
  };
}

function toolSet(tools: RoutedTool[], defer?: boolean): ToolSet {
  return new ToolSet({ tools, shadowed: [], missing: [], settings: {}, defer });
}

function sizes(value: unknown): { bytes: number; tokens: number } {
  const text = JSON.stringify(value);
  return { bytes: new TextEncoder().encode(text).length, tokens: Math.ceil(text.length / 4) };
}

async function searchNames(set: ToolSet, query: string, limit: number): Promise<string[]> {
  const result = await set.call("search_tools", { query, limit });
  if (result.isError) throw new Error(result.text);
  return (JSON.parse(result.text) as { tools: { name: string }[] }).tools.map((t) => t.name);
}

const flat = Object.entries(CATALOG).flatMap(([server, entries]) =>
  entries.map((entry) => ({ server, entry }))
);
const pct = (part: number, whole: number) => `${(100 * part / whole).toFixed(2)} %`;

// 1. Definition size: 500 tools over 10 servers.
{
  const servers: [string, CatalogEntry[]][] = [];
  for (let k = 0; k < 10; k++) {
    const entries: CatalogEntry[] = [];
    for (let i = 0; i < 50; i++) {
      const { server, entry } = flat[(k * 50 + i) % flat.length];
      entries.push([`${server}_${entry[0]}`, entry[1], entry[2]]);
    }
    servers.push([`server${k}`, entries]);
  }
  const tools = remoteTools(servers);
  const eager = toolSet(tools);
  const deferred = toolSet(tools, true);
  console.log(`1. Definitions of ${tools.length} tools over ${servers.length} servers`);
  for (
    const [label, render] of [
      ["Anthropic", (set: ToolSet) => set.toAnthropic()],
      ["OpenAI", (set: ToolSet) => set.tools],
      ["MCP", (set: ToolSet) => set.toMcp()],
    ] as const
  ) {
    const all = sizes(render(eager));
    const few = sizes(render(deferred));
    console.log(
      `   ${
        label.padEnd(9)
      } eager ${all.bytes} bytes (~${all.tokens} tokens); deferred ${few.bytes} bytes (~${few.tokens} tokens) = ${
        pct(few.bytes, all.bytes)
      } of the bytes, ${pct(few.tokens, all.tokens)} of the tokens`,
    );
  }
  await searchNames(deferred, "create an issue", 5);
  const grown = sizes(deferred.toAnthropic());
  const all = sizes(eager.toAnthropic());
  console.log(
    `   after one search (5 tools loaded): ${grown.bytes} bytes (~${grown.tokens} tokens) = ${
      pct(grown.bytes, all.bytes)
    }`,
  );
}

// 2. Recall over the labelled requests.
{
  const tools = remoteTools(Object.entries(CATALOG));
  const byOrigin = new Map(tools.map((tool) => [tool.origin, tool.name]));
  let at1 = 0;
  let at5 = 0;
  const misses: string[] = [];
  for (const [request, label] of REQUESTS) {
    const expected = byOrigin.get(label);
    if (expected === undefined) throw new Error(`no tool ${label} in the catalog`);
    const found = await searchNames(toolSet(tools, true), request, 5);
    if (found[0] === expected) at1++;
    if (found.includes(expected)) at5++;
    else misses.push(`   miss: "${request}" -> ${label}; got ${found.slice(0, 3).join(", ")}`);
  }
  const servers = Object.keys(CATALOG).length;
  console.log(
    `\n2. ${REQUESTS.length} labelled requests over ${tools.length} tools from ${servers} servers`,
  );
  console.log(`   recall@1 ${pct(at1, REQUESTS.length)}, recall@5 ${pct(at5, REQUESTS.length)}`);
  for (const miss of misses) console.log(miss);
}

// 3. Search time over 10,000 tools.
{
  const servers: [string, CatalogEntry[]][] = [];
  for (let k = 0; servers.length * 0 + flat.length * k < 10_000; k++) {
    for (const [server, entries] of Object.entries(CATALOG)) {
      servers.push([`${server}${k}`, entries]);
    }
  }
  const tools = remoteTools(servers).slice(0, 10_000);
  const set = toolSet(tools, true);
  let started = performance.now();
  await searchNames(set, "warm up and build the index", 5);
  const build = performance.now() - started;
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const [request] of REQUESTS) {
      started = performance.now();
      await searchNames(set, request, 5);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  console.log(`\n3. ${times.length} searches over ${tools.length} tools (search_tools calls)`);
  console.log(
    `   median ${at(0.5).toFixed(3)} ms, p99 ${at(0.99).toFixed(3)} ms; first search ${
      build.toFixed(1)
    } ms (builds the index)`,
  );
}
