import { resolve } from "@std/path";
import { cliDenoFlags, cliPermissions } from "./cli_permissions.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import { listenAddress, listenPermission } from "./listen_address.ts";

/**
 * `toolroute flags`: prints the exact `deno run` flags serving the config needs.
 *
 * @param flags The parsed flags.
 * @param io Output.
 * @returns The exit code.
 */
export async function flagsCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  const config = await configFromFlags(flags, { env: false });
  const http = typeof flags.http === "string" ? listenAddress(flags.http) : undefined;
  const address = http === undefined ? undefined : listenPermission(http);
  const tokenFile = typeof flags["token-file"] === "string"
    ? resolve(flags["token-file"])
    : undefined;
  io.out(cliDenoFlags(cliPermissions(config, address, { tokenFile })).join(" "));
  return 0;
}
