import { cliDenoFlags, cliPermissions, flagFiles } from "./cli_permissions.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import { startupFiles } from "./startup_files.ts";
import { filesInside, trustFiles, withStartupProtection } from "./startup_protection.ts";
import { listenAddress, listenPermission } from "./listen_address.ts";
import { storeLocation } from "./store_location.ts";

/** `toolroute flags`: prints the exact `deno run` flags serving the config needs. */
export async function flagsCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  const http = typeof flags.http === "string" ? listenAddress(flags.http) : undefined;
  const config = await configFromFlags(flags, {
    env: false,
    onWarning: (line) => io.err(`toolroute: ${line}`),
  });
  const address = http === undefined ? undefined : listenPermission(http);
  const files = flagFiles(flags, storeLocation(flags.store));
  io.out(cliDenoFlags(cliPermissions(config, address, files)).join(" "));
  if (flags.explain === true) {
    const startup = await startupFiles(config);
    const inside = filesInside(config.context, startup.files);
    const trusted = trustFiles(files);
    const trustedInside = filesInside(config.context, trusted);
    const protectedContext = withStartupProtection(config.context, startup, { trusted });
    io.out(
      `Protected from write_file, apply_patch, edit and the bash sandbox (serve runs or reads them at its next start): ${inside.length} files`,
    );
    for (const path of inside) io.out(`  ${path}`);
    if (trustedInside.length > 0) {
      io.out(
        `Protected the same way (serve writes and trusts them: --store, its journals, --audit): ${trustedInside.length} files`,
      );
      for (const path of trustedInside) io.out(`  ${path}`);
    }
    const absent = (protectedContext.protectedPaths ?? []).filter((path) =>
      ![...inside, ...trustedInside].some((file) => file.endsWith(path.replace(/^\.\//, "/")))
    );
    if (absent.length > 0) {
      io.out(
        `Also protected (context protectedPaths, absent Deno config names and lock): ${
          absent.join(", ")
        }`,
      );
    }
    io.out(
      "Also protected, at any depth: every git directory (a folder holding HEAD beside objects/, refs/ or commondir, and .git files): the file tools refuse to create or write one, the sandbox binds them read-only, and one a command creates is disabled after it (its HEAD renamed to HEAD.disabled-by-toolroute); see docs/security.md for what else your own tools run by themselves",
    );
  }
  return 0;
}
