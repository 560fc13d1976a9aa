import { toApiFunctionName } from "../../../api_function_name.ts";

/** A valid exposed tool name, as remote tools may keep their own. */
const OWN_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The tools of one selected server of a tier. */
export interface ServerToolNames {
  serverId: string;
  /** The tool names as the server lists them. */
  toolNames: readonly string[];
}

/** Where an exposed name leads. */
export interface RemoteToolTarget {
  serverId: string;
  /** The tool's name on that server. */
  toolName: string;
}

/**
 * Names the tools of one tier's selected servers. A tool keeps its own name when that is a valid
 * API name (`^[A-Za-z0-9_-]{1,64}$`), no other selected server of the tier offers it, and it does
 * not begin with another selected server's qualified prefix (`OTHER_`: a server that changed its
 * list to hold `bank_transfer` would otherwise take the name the bank's `transfer` had while
 * both offered `transfer`, and a model still calling it would reach that server); otherwise it
 * is exposed as `toApiFunctionName(serverId, toolName)`. Two servers offering the
 * same name are both qualified (never last-writer-wins). A qualified name that would begin with a
 * longer selected server's prefix (server `gh`'s tool `x.delete` as `gh_x_delete`, where a server
 * `gh_x` is selected) doubles the `_` after its own prefix (`gh__x_delete`): every name beginning
 * `gh_x_` is `gh_x`'s, so a tool of `gh` can never take, or hold, a name of `gh_x`'s tools. The
 * result maps each exposed name back to the original server and tool, in input order.
 *
 * @param servers The selected servers of one tier, with their tool names.
 * @returns Exposed name → original server and tool name.
 */
export function assignRemoteToolNames(
  servers: readonly ServerToolNames[],
): Map<string, RemoteToolTarget> {
  const owners = new Map<string, number>();
  for (const server of servers) {
    for (const name of new Set(server.toolNames)) owners.set(name, (owners.get(name) ?? 0) + 1);
  }
  const prefixes = servers.map((server) => ({
    serverId: server.serverId,
    prefix: toApiFunctionName(server.serverId, "x").slice(0, -1),
  }));
  const candidates: { exposed: string; target: RemoteToolTarget; own: boolean }[] = [];
  for (const server of servers) {
    const seen = new Set<string>();
    for (const toolName of server.toolNames) {
      if (seen.has(toolName)) continue;
      seen.add(toolName);
      const own = OWN_NAME.test(toolName) && owners.get(toolName) === 1 &&
        !prefixes.some(({ serverId, prefix }) =>
          serverId !== server.serverId && toolName.startsWith(prefix)
        );
      const exposed = own ? toolName : qualified(server.serverId, toolName, prefixes);
      candidates.push({ exposed, target: { serverId: server.serverId, toolName }, own });
    }
  }
  const counts = new Map<string, number>();
  for (const c of candidates) counts.set(c.exposed, (counts.get(c.exposed) ?? 0) + 1);
  const names = new Map<string, RemoteToolTarget>();
  for (const candidate of candidates) {
    let exposed = candidate.exposed;
    if (counts.get(exposed)! > 1 && candidate.own) {
      exposed = qualified(candidate.target.serverId, candidate.target.toolName, prefixes);
    }
    exposed = unused(exposed, names);
    names.set(exposed, candidate.target);
  }
  return names;
}

/**
 * A tool's qualified name, kept out of a longer server prefix: the qualified names of a server
 * `gh_x` are every `gh_x_…`, so `gh`'s tool `x.delete` (`gh_x_delete`) would take a name of
 * `gh_x`'s (`delete`, qualified when it clashes) whenever `gh` came first, and move it whenever
 * `gh` changed its list. A doubled `_` after the own prefix is a name no other server's qualified
 * names have (they collapse runs of `_`) and no other server's own names keep (they would begin
 * with this server's prefix).
 */
function qualified(
  serverId: string,
  toolName: string,
  prefixes: readonly { serverId: string; prefix: string }[],
): string {
  const name = toApiFunctionName(serverId, toolName);
  const own = prefixes.find((p) => p.serverId === serverId)?.prefix;
  if (own === undefined || !name.startsWith(own)) return name;
  const longer = prefixes.some(({ serverId: id, prefix }) =>
    id !== serverId && prefix.length > own.length && name.startsWith(prefix)
  );
  return longer ? `${own}_${name.slice(own.length)}`.slice(0, 64) : name;
}

/** Returns `name`, or `name` with the first free `_2`, `_3`, … suffix (kept within 64 chars). */
function unused(name: string, taken: Map<string, unknown>): string {
  if (!taken.has(name)) return name;
  for (let n = 2;; n++) {
    const suffix = `_${n}`;
    const candidate = name.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
