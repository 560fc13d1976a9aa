import { ToolRouter } from "../../core/tool_router.ts";
import { openStore, storeLocation } from "./store_location.ts";
import type { CliIo } from "./cli_io.ts";
import { UsageError } from "./usage_error.ts";
import type { ParsedArgs } from "./parse_args.ts";
import { sharedApprovalSecret } from "./approval_secret.ts";

/**
 * `toolroute grants ls|revoke`: lists or ends the grants (approvals answered "session" or
 * "always") that `serve --store FILE` keeps in its store. Listing checks each grant's signature,
 * with the secret serve signs them with (`TOOLROUTE_APPROVAL_SECRET`, else the one in the store);
 * with `TOOLROUTE_STORE_KEY` set, the store is read as serve seals it.
 *
 * @tags allow-read, allow-write, allow-env
 * @param parsed The flags (`--store FILE`, `--user ID`, `--json`) and the positionals (`ls`,
 *   or `revoke ID`).
 * @returns 0, or 1 when `revoke` found no such grant.
 */
export async function grantsCommand(
  parsed: ParsedArgs,
  io: CliIo,
): Promise<number> {
  const { flags, positionals } = parsed;
  const [action, id, ...rest] = positionals;
  if ((action !== "ls" && action !== "revoke") || rest.length > 0) {
    throw new UsageError('Use "toolroute grants ls" or "toolroute grants revoke ID" with --store');
  }
  if (typeof flags.store !== "string") {
    throw new UsageError('"toolroute grants" needs --store FILE: the store serve keeps grants in');
  }
  // As serve reads it: sealed with TOOLROUTE_STORE_KEY when that is set.
  await using opened = await openStore(
    storeLocation(flags.store)!,
    (line) => io.err(`toolroute: ${line}`),
  );
  const store = opened.store;
  if (action === "revoke") {
    if (id === undefined) {
      throw new UsageError('Missing the grant id: "toolroute grants revoke ID"');
    }
    const found = await new ToolRouter({ store }).revokeGrant(id);
    io.err(found ? `toolroute: grant ${id} revoked` : `toolroute: no grant ${id} in the store`);
    return found ? 0 : 1;
  }
  if (id !== undefined) throw new UsageError(`Unexpected argument "${id}" for "grants ls"`);
  // Listing checks each grant's signature with the secret serve signs them with: the variable's,
  // or the one kept in the store.
  const router = new ToolRouter({ store, approvalSecret: await sharedApprovalSecret(store) });
  const grants = await router.grants(
    typeof flags.user === "string" ? { userId: flags.user } : undefined,
  );
  if (flags.json === true) {
    io.out(JSON.stringify(grants.map(({ signature: _, ...grant }) => grant), null, 2));
    return 0;
  }
  if (grants.length === 0) io.err("toolroute: no grants");
  for (const grant of grants) {
    io.out(
      [
        grant.id,
        grant.userId ?? "-",
        grant.tool,
        JSON.stringify(grant.rule),
        grant.scope,
        grant.expiresAt ?? "until revoked",
      ].join("  "),
    );
  }
  return 0;
}
