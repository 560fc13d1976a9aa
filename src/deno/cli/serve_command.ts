import { buildRouter, checkUser, describeMissing } from "./build_router.ts";
import { escapeLogText, formatCallLog, formatGatewayLog } from "./call_log.ts";
import {
  checkCliPermissions,
  cliDenoFlags,
  type CliPermissionOptions,
  cliPermissions,
  flagFiles,
} from "./cli_permissions.ts";
import { type CliIo, configFromFlags } from "./cli_io.ts";
import { type ListenAddress, listenAddress, listenPermission } from "./listen_address.ts";
import { ANONYMOUS, type HttpAuth, oauthRedirectUrl, serveHttp } from "./serve_http.ts";
import { serveToken, writeTokenFile } from "./serve_token.ts";
import { type ServeContext, serveStdio } from "./serve_stdio.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";
import { UsageError } from "./usage_error.ts";
import { deferredLines } from "./deferred_lines.ts";
import { startProgress } from "./start_progress.ts";
import { trustFiles } from "./startup_protection.ts";
import { FileAuditSink } from "../audit/file_audit_sink.ts";
import { checkUserSeparation, servedContexts } from "./user_workspace.ts";
import { openStore, storeLocation } from "./store_location.ts";
import { requiredPermissions } from "../builtins/permissions/required_permissions.ts";
import { BWRAP_INSTALL, BWRAP_STILL_WORKS } from "../sandbox/bwrap_missing.ts";

/** How long serve's `tools/list` waits for servers still starting, unless the config says. */
const SERVE_LIST_WAIT_MS = 3_000;

/**
 * `toolroute serve`: checks the process's permissions against the config, then serves the
 * exposed tool set over stdio or Streamable HTTP until stdin ends or SIGINT/SIGTERM.
 *
 * @param io Logs (stderr only: stdout belongs to the protocol in stdio mode).
 */
export async function serveCommand(
  flags: Record<string, string | true>,
  io: CliIo,
): Promise<number> {
  if (flags.stdio === true && flags.http !== undefined) {
    throw new UsageError('Give either "--stdio" or "--http", not both');
  }
  const http = typeof flags.http === "string" ? listenAddress(flags.http) : undefined;
  if (http !== undefined && flags.user !== undefined) {
    throw new UsageError(
      '"--user" applies to --stdio; over HTTP the user comes from the bearer token',
    );
  }
  const storeAt = storeLocation(flags.store);
  const files = flagFiles(flags, storeAt);
  const tokenFile = files.tokenFile;
  if (tokenFile !== undefined && http === undefined) {
    throw new UsageError('"--token-file" applies to --http; over stdio there is no token');
  }
  const warn = (line: string) => io.err(`toolroute: ${line}`);
  checkPermissionsOrRefuse(
    await configFromFlags(flags, { env: false, onWarning: warn }),
    http,
    flags,
    files,
  );
  // Over stdio, stdin is the client's: an ${input:…} cannot be asked there.
  const config = await configFromFlags(flags, http === undefined ? {} : { ask: io.ask });
  // Over HTTP each request's user comes from its token; over stdio one user is served.
  const userId = http === undefined
    ? checkUser(config, typeof flags.user === "string" ? flags.user : undefined)
    : undefined;
  checkUserSeparation(config, flags["shared-workspace"] === true);
  const auth = http === undefined ? undefined : await httpAuth(config, http, tokenFile);
  const toolsChanged = new Set<(userId?: string) => void>();
  // Call lines are written after the call's answer (see deferredLines); the rest at the end.
  const callLog = deferredLines((lines) => io.err(lines));
  using _flushCallLog = { [Symbol.dispose]: () => callLog.flush() };
  await using audit = files.audit === undefined ? undefined : await FileAuditSink.open(
    files.audit,
    { onError: (error) => io.err(`toolroute: audit "${files.audit}": ${error.message}`) },
  );
  await using opened = storeAt === undefined ? undefined : await openStore(storeAt, warn);
  const progress = startProgress(io);
  await using served = await buildRouter(config, {
    oauthRedirectUrl: http === undefined ? undefined : oauthRedirectUrl(http),
    audit,
    store: opened?.store,
    trustFiles: trustFiles(files),
    defer: flags.defer === true,
    // Clients hear of a server that starts later (list_changed): a list never waits long.
    listWaitMs: config.listWaitMs ?? SERVE_LIST_WAIT_MS,
    onEvent: (event) => callLog.push(formatCallLog(event)),
    onGatewayEvent: (event) => {
      progress?.(event);
      if (event.type === "connecting") return; // A start is a progress line, on a terminal only.
      callLog.push(formatGatewayLog(event)); // In order with the calls' lines.
      if (event.type === "tools_changed") {
        for (const notify of toolsChanged) notify(event.userId);
      }
    },
  });
  if (served.lock !== undefined) {
    io.err(`toolroute: tool lock "${served.lock.path}": ${served.lock.tools} tools pinned`);
  }
  const bash = config.context.bash;
  if (typeof bash === "object" && bash.sandbox === "none") {
    io.err(
      `toolroute: warning: bash runs unsandboxed (bash.sandbox "none"): nothing stops a command from rewriting the ${served.startupFiles.length} files serve runs or reads at its next start (see "toolroute flags --explain")`,
    );
  }
  if (served.linkedStartupFiles.length > 0) {
    io.err(
      `toolroute: warning: ${served.linkedStartupFiles.join(", ")} ${
        served.linkedStartupFiles.length === 1 ? "has" : "have"
      } more than one hard link: a command could rewrite ${
        served.linkedStartupFiles.length === 1 ? "it" : "them"
      } through another name; replace with a copy (cp --remove-destination)`,
    );
  }
  // Connect the configured servers now, without holding up the protocol: a slow server must
  // not delay the client's initialize. Names that cannot be exposed are reported on stderr.
  const first = served.expose(userId).then(
    (toolSet) => {
      io.err(`toolroute: ${toolSet.names.length} tools exposed${userId ? ` to "${userId}"` : ""}`);
      // A missing name's reason may be a remote server's text.
      for (const line of describeMissing(toolSet.missing)) {
        io.err(`toolroute: ${escapeLogText(line)}`);
      }
    },
    (error) =>
      io.err(`toolroute: cannot expose the tools: ${escapeLogText((error as Error).message)}`),
  );
  const stop = stopSignal();
  const context: ServeContext = { served, config, io, stop: stop.signal, toolsChanged };
  try {
    if (http === undefined) await serveStdio(context, userId);
    else await serveHttp(context, { http, auth: auth! });
  } finally {
    stop.dispose();
    await first;
  }
  return 0;
}

function checkPermissionsOrRefuse(
  config: ToolrouteConfig,
  http: ListenAddress | undefined,
  flags: Record<string, string | true>,
  files: CliPermissionOptions,
): void {
  const address = http === undefined ? undefined : listenPermission(http);
  const needed = cliPermissions(config, address, files);
  const report = checkCliPermissions(config, needed);
  const exact = cliDenoFlags(needed).join(" ");
  // Without bubblewrap, stdio servers run unconfined with a warning (or fail at their start
  // when their config asks for a sandbox); only a sandboxed bash refuses to serve.
  const bashNeeds = config.builtins === false
    ? []
    : servedContexts(config).flatMap((context) => requiredPermissions(context).run);
  const absent = report.absent.filter((program) => bashNeeds.includes(program));
  if (absent.includes("bwrap") || absent.includes("bash")) {
    const program = absent.includes("bwrap")
      ? `bubblewrap (bwrap) is not installed, and "bash" in the config runs commands (and the ` +
        `file tools) in its sandbox. Install it: ${BWRAP_INSTALL}. ${BWRAP_STILL_WORKS}: ` +
        `remove "bash" from the config to serve them`
      : `bash is not installed, and "bash" in the config runs commands with it. Install bash, ` +
        `or remove "bash" from the config to serve the rest`;
    throw new UsageError(`Cannot serve: ${program}`);
  }
  if (report.missing.length > 0) {
    throw new UsageError(
      `Cannot serve: the process lacks ${
        report.missing.join(" ")
      }; run deno with exactly: ${exact}`,
    );
  }
  if (report.excess.length > 0 && flags["allow-excess"] !== true) {
    throw new UsageError(
      `Refusing to serve: the process holds more permissions than the config needs (${
        report.excess.join(" ")
      }); run deno with exactly: ${exact}, or pass --allow-excess`,
    );
  }
}

async function httpAuth(
  config: ToolrouteConfig,
  http: ListenAddress,
  tokenFile: string | undefined,
): Promise<HttpAuth> {
  if (config.users.length === 0) {
    if (!http.loopback) {
      throw new UsageError(
        `Serving on "${http.hostname}" (not loopback) requires bearer tokens: add "users" to the config`,
      );
    }
    // Always a token, also on loopback: any other local user can reach a loopback port.
    const { token, generated } = serveToken();
    if (tokenFile !== undefined) await writeTokenFile(tokenFile, token);
    return { tokens: { [token]: ANONYMOUS }, anonymous: true, generated, tokenFile };
  }
  if (tokenFile !== undefined) {
    throw new UsageError('"--token-file" applies without "users"; each user has its own token');
  }
  // By token, in a Map: two users with one token would leave the token to the later user (the
  // earlier one's requests served as that user), and a token "__proto__" would name no one.
  const tokens = new Map<string, { id: string; variable: string }>();
  for (const user of config.users) {
    const token = Deno.env.get(user.tokenVariable);
    if (token === undefined || token === "") {
      throw new UsageError(
        `The token of user "${user.id}" is not set: set the environment variable ${user.tokenVariable}`,
      );
    }
    const other = tokens.get(token);
    if (other !== undefined) {
      throw new UsageError(
        `users.${other.variable} and users.${user.tokenVariable} hold the same token, so one user would be served as the other: give each user its own token`,
      );
    }
    tokens.set(token, { id: user.id, variable: user.tokenVariable });
  }
  const byToken = Object.fromEntries([...tokens].map(([token, { id }]) => [token, id]));
  return { tokens: byToken, anonymous: false, generated: false };
}

function stopSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  return {
    signal: controller.signal,
    dispose: () => signals.forEach((signal) => Deno.removeSignalListener(signal, stop)),
  };
}
