import { abortable } from "@std/async";
import { HttpClientTransport } from "../http/http_client_transport.ts";
import type { McpOAuth } from "../oauth/mcp_oauth.ts";
import type { McpOAuthClient } from "../../mcp_server_config.ts";
import type {
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayOptions,
} from "../mcp_gateway_types.ts";
import type { ToolLogEntry } from "../../../tool_source.ts";
import {
  adoptLegacyHandshake,
  CallingClient,
  type Client,
  type ClientOptions,
  type LegacyHandshake,
  type PriorDiscovery,
  type ProtocolEra,
  SdkError,
  SdkErrorCode,
  type Transport,
  type VersionNegotiationOptions,
} from "../../mcp_sdk.ts";
import { type EraKey, type EraVerdicts, refusedAsUnsupported } from "./era_verdicts.ts";
import { surfaceTaskAnswers } from "./task_answers.ts";
import {
  isStdioConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
} from "../../mcp_server_config.ts";
import type {
  McpJsonSchemaValidator,
  McpTransport,
  McpTransportFactory,
} from "../../mcp_transport.ts";

/** The transport kinds a connection can use. */
export type TransportKind = "http" | "sse" | "custom";

/** What opening one client needs. */
export interface OpenClientSettings {
  serverId: string;
  userId?: string;
  config: McpServerConfig;
  /** Deadline of transport start and `initialize`. */
  connectTimeoutMs: number;
  /** Most bytes of one HTTP response body. */
  maxResponseBytes: number;
  fetch?: typeof fetch;
  allowedHosts?: readonly string[];
  jsonSchemaValidator?: McpJsonSchemaValidator;
  /** When a Streamable HTTP connection keeps a standing event stream (GET) open. */
  eventStream?: "session" | "always";
  /** Makes transports for configs the core cannot serve. */
  transportFactory?: McpTransportFactory;
  /** Answers elicitation requests; declares the capability when set. */
  onElicitation?: McpGatewayOptions["onElicitation"];
  /** The MCP authorization flow, for HTTP servers configured without an `Authorization` header. */
  oauth?: Pick<McpOAuth, "fetchFor" | "secrets">;
  /** Declares the elicitation capability so calls can relay requests (see `ClientRoutes`). */
  relayElicitation?: boolean;
  /** The protocol era each connection found, so the next connect asks no more (see `EraVerdicts`). */
  eras?: EraVerdicts;
}

/**
 * How one connection opens its client, and where the client sends what the server asks or tells
 * during calls (kept apart from the settings, which thousands of connections share).
 */
export interface OpenClientOptions {
  /**
   * The kind that worked last time, tried first; `"sse"` still falls back to Streamable HTTP, so
   * a server upgraded since is reached again.
   */
  preferred?: TransportKind;
  /** Routes an elicitation request (to the call that caused it); wins over `onElicitation`. */
  elicit?: (
    request: McpElicitationRequest,
    signal: AbortSignal,
  ) => Promise<McpElicitationResult>;
  onLog?: (entry: ToolLogEntry) => void;
  /** Told of `notifications/tools/list_changed`, with the client it came on. */
  onToolsChanged?: (client: Client) => void;
  /**
   * Told when the client closes, with its transport (the client lets go of it before telling,
   * and a stdio transport says why its process ended).
   */
  onClose?: (client: Client, transport: McpTransport) => void;
  /**
   * The session of a parked 2025-era connection to go on with: the client is built on it with
   * no round trip (no `initialize`), over Streamable HTTP; the era verdict is left as it is.
   * A `ParkedSession` (typed by its shape: parked_session.ts opens clients through this file).
   */
  resume?: { readonly sessionId: string; readonly handshake: LegacyHandshake };
}

/** An initialised client and how it is connected. */
export interface OpenedClient {
  client: Client;
  kind: TransportKind;
  /** The protocol era it speaks: `"modern"` (2026-07-28) or `"legacy"` (2025). */
  era: ProtocolEra;
}

/**
 * Opens and initialises one MCP client: the factory's transport when it gives one, otherwise HTTP.
 * Without a configured transport both kinds are tried, Streamable HTTP first (or the preferred
 * kind first), moving to the other when the server answers 400, 404 or 405: that is how a
 * server speaking only the other kind refuses. Everything opened is closed again when it fails.
 *
 * @param settings The server and connection settings.
 * @param routes The kind tried first, and where the server's requests and logs during calls go.
 * @returns The client and its transport kind.
 */
export async function openMcpClient(
  settings: OpenClientSettings,
  routes: OpenClientOptions = {},
): Promise<OpenedClient> {
  const { preferred, resume } = routes;
  const { config } = settings;
  if (resume !== undefined && !isStdioConfig(config)) {
    const { sessionId } = resume;
    const transport = httpTransport(settings, { config, kind: "http", sessionId });
    const client = await initialise(settings, transport, { prior: undefined, routes });
    return { client, kind: "http", era: "legacy" };
  }
  const key = eraKey(settings);
  const prior = settings.eras?.get(key);
  const request = { serverId: settings.serverId, userId: settings.userId };
  const custom = await settings.transportFactory?.(config, request);
  if (custom !== undefined) {
    try {
      return opened(settings, key, await initialise(settings, custom, { prior, routes }), "custom");
    } catch (error) {
      if (
        prior !== undefined || (config.protocol ?? "auto") !== "auto" || !probeMayHaveEnded(error)
      ) {
        throw error;
      }
      // A local server that exits on the probe (SDKs that end on any request before
      // `initialize`) is a 2025 server: once more, on a fresh process, with `initialize` only.
      const again = await settings.transportFactory?.(config, request);
      if (again === undefined) throw error;
      const client = await initialise(settings, again, { prior: { kind: "legacy" }, routes });
      return opened(settings, key, client, "custom");
    }
  }
  if (isStdioConfig(config)) throw new StdioUnsupportedError(settings.serverId);
  const kinds: ("http" | "sse")[] = config.transport !== undefined
    ? [config.transport]
    : preferred === "sse"
    ? ["sse", "http"]
    : ["http", "sse"];
  for (let i = 0;; i++) {
    const transport = httpTransport(settings, { config, kind: kinds[i] });
    try {
      const client = await initialise(settings, transport, { prior, routes });
      return opened(settings, key, client, kinds[i]);
    } catch (error) {
      if (i + 1 >= kinds.length || !refusedAsUnsupported(error)) throw error;
    }
  }
}

/** The HTTP transport of a server's config, on a session to go on with when `sessionId` is set. */
function httpTransport(
  settings: OpenClientSettings,
  how: { config: McpHttpServerConfig; kind: "http" | "sse"; sessionId?: string },
): HttpClientTransport {
  const { config, kind, sessionId } = how;
  return new HttpClientTransport({
    url: new URL(config.url),
    headers: config.headers,
    kind,
    fetch: withOAuth(settings, config),
    allowedHosts: settings.allowedHosts,
    maxBodyBytes: settings.maxResponseBytes,
    eventStream: settings.eventStream,
    ...(sessionId === undefined ? {} : { sessionId }),
  });
}

/**
 * The key of a connection's era verdict: server, user, and what the config says about where it
 * is and which era to speak (a changed URL, command or `protocol` asks again).
 *
 * @param settings The connection's settings.
 */
export function eraKey(
  settings: Pick<OpenClientSettings, "serverId" | "userId" | "config">,
): EraKey {
  const { config } = settings;
  const where = isStdioConfig(config)
    ? JSON.stringify([config.command, config.args ?? [], config.cwd ?? null])
    : config.url;
  return { ...serverOf(settings), target: `${config.protocol ?? "auto"} ${where}` };
}

/**
 * The server and, for a user's connection, the user (no `userId` key for a global one), as
 * events, era keys and questions to the person name them.
 */
export function serverOf(
  settings: Pick<OpenClientSettings, "serverId" | "userId">,
): { serverId: string; userId?: string } {
  const { serverId, userId } = settings;
  return userId === undefined ? { serverId } : { serverId, userId };
}

/**
 * Whether a connection declares elicitation, and so answers a server's questions: to the call
 * they belong to (`relayElicitation`), or to the gateway's `onElicitation`.
 */
export function relaysQuestions(
  settings: Pick<OpenClientSettings, "onElicitation" | "relayElicitation">,
): boolean {
  return settings.onElicitation !== undefined || settings.relayElicitation === true;
}

/** The opened client, its era kept for the next connect. */
function opened(
  settings: OpenClientSettings,
  key: EraKey,
  client: Client,
  kind: TransportKind,
): OpenedClient {
  const era = client.getProtocolEra() ?? "legacy";
  const discover = client.getDiscoverResult();
  settings.eras?.set(
    key,
    era === "modern" && discover !== undefined ? { kind: "modern", discover } : { kind: "legacy" },
  );
  return { client, kind, era };
}

/** Whether a failed first connect may have been the server ending on the probe. */
function probeMayHaveEnded(error: unknown): boolean {
  return !(error instanceof ConnectDeadlineError) &&
    !(error instanceof Error && /authoriz/i.test(error.name));
}

/**
 * Thrown when a `{ command }` (stdio) config reaches a gateway that cannot run it: no transport
 * factory gave a transport for it. Retrying cannot help, so the connection gives up for good.
 */
export class StdioUnsupportedError extends TypeError {
  override name = "StdioUnsupportedError";
  constructor(serverId: string) {
    super(
      `Cannot connect to MCP server "${serverId}": stdio servers ("command") need the ` +
        `"@toolroute/toolroute/deno" entry (createDenoGateway) or a "transportFactory"`,
    );
  }
}

/** The connect deadline passed (a second attempt would only wait again). */
class ConnectDeadlineError extends Error {}

/** The SDK's negotiation mode for a config's `protocol`. */
function negotiation(config: McpServerConfig, custom: boolean): VersionNegotiationOptions {
  const protocol = config.protocol;
  if (protocol === "2025") return { mode: "legacy" };
  if (protocol === "2026-07-28") return { mode: { pin: "2026-07-28" } };
  // A local server that does not answer an unknown request is a 2025 one: it is not waited for
  // the whole connect deadline (a slow first start is then taken for 2025, and asked again later).
  return custom ? { mode: "auto", probe: { timeoutMs: STDIO_PROBE_MS } } : { mode: "auto" };
}

/** How long a local (stdio) server's silence on `server/discover` is waited for. */
const STDIO_PROBE_MS = 5_000;

function withOAuth(
  settings: OpenClientSettings,
  config: { url: string; headers?: Record<string, string>; oauth?: McpOAuthClient },
): typeof fetch | undefined {
  const hasAuthorization = Object.keys(config.headers ?? {})
    .some((name) => name.toLowerCase() === "authorization");
  if (settings.oauth === undefined || hasAuthorization) return settings.fetch;
  const target = {
    serverId: settings.serverId,
    userId: settings.userId,
    serverUrl: config.url,
    ...(config.oauth === undefined ? {} : { client: config.oauth }),
  };
  return settings.oauth.fetchFor(target, (input, init) => (settings.fetch ?? fetch)(input, init));
}

async function initialise(
  settings: OpenClientSettings,
  transport: McpTransport,
  how: { prior: PriorDiscovery | undefined; routes: OpenClientOptions },
): Promise<Client> {
  const { prior, routes } = how;
  const answer = routes.elicit ?? settings.onElicitation;
  const elicits = relaysQuestions(settings);
  const options: ClientOptions = {
    capabilities: elicits ? { elicitation: { form: { applyDefaults: true } } } : {},
    versionNegotiation: negotiation(settings.config, !(transport instanceof HttpClientTransport)),
    // Absent: the SDK's default validator.
    jsonSchemaValidator: settings.jsonSchemaValidator as ClientOptions["jsonSchemaValidator"],
  };
  const client = new CallingClient({ name: "toolroute", version: "0.1.0" }, options);
  // A parked session: the client connects on it with no `initialize` (see `adoptLegacyHandshake`).
  if (routes.resume !== undefined) adoptLegacyHandshake(client, routes.resume.handshake);
  if (elicits && answer !== undefined) {
    client.setRequestHandler("elicitation/create", async (request, ctx) => {
      const params = request.params as { message: string; requestedSchema?: object };
      const result = await answer({
        ...serverOf(settings),
        message: params.message,
        requestedSchema: (params.requestedSchema ?? {}) as Record<string, unknown>,
      }, ctx.mcpReq.signal);
      return result as { action: "accept" | "decline" | "cancel" };
    });
  }
  const { onLog, onToolsChanged, onClose } = routes;
  if (onToolsChanged !== undefined) {
    client.setNotificationHandler("notifications/tools/list_changed", () => onToolsChanged(client));
  }
  if (onClose !== undefined) client.onclose = () => onClose(client, transport);
  if (onLog !== undefined) {
    client.setNotificationHandler("notifications/message", (notification) => {
      const { level, logger, data } = notification.params;
      onLog({ level, ...(typeof logger === "string" ? { logger } : {}), data });
    });
  }
  // A deadline configured for this server is kept as it is; otherwise a transport that may
  // download first (`npx -y`) gets its longer one.
  const configured = settings.config.connectTimeoutMs;
  const ms = configured ?? Math.max(settings.connectTimeoutMs, transport.connectTimeoutMs ?? 0);
  try {
    const connect = { timeout: ms, ...(prior === undefined ? {} : { prior }) };
    await timeLimited(client.connect(transport as Transport, connect), ms).catch(
      (error: unknown) => {
        if (!(error instanceof DOMException && error.name === "TimeoutError")) throw error;
        const why = transport.describeStall?.();
        throw new ConnectDeadlineError(
          `Connecting to MCP server "${settings.serverId}" did not finish within ${ms} ms; if it ` +
            `is only slow to start, raise "connectTimeoutMs" in its entry of the config (for ` +
            `example "connectTimeoutMs": ${ms * 3})${why ? `. Also: ${why}` : ""}`,
        );
      },
    );
    if (client.getProtocolEra() === "modern") {
      surfaceTaskAnswers(transport as Transport, { capabilities: client.getServerCapabilities() });
    }
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw probeCause(error);
  }
}

/**
 * The fault under a failed `server/discover` probe (a refused connection, a redirect, a host not
 * allowed), as a 2025 connect reports it: the message names what failed, and the gateway tells
 * an undelivered request by its class.
 */
function probeCause(error: unknown): unknown {
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  return error instanceof SdkError && code === SdkErrorCode.EraNegotiationFailed &&
      cause instanceof Error
    ? cause
    : error;
}

/**
 * A promise rejected with a `TimeoutError` once `ms` pass, as std's `deadline`, but with its timer
 * cleared when the promise settles: `deadline`'s `AbortSignal.timeout` keeps its signal (and what
 * hangs on it) for the whole deadline after a connect ended, for each connect of each user.
 */
async function timeLimited<T>(promise: Promise<T>, ms: number): Promise<T> {
  const timer = new AbortController();
  const id = setTimeout(
    () => timer.abort(new DOMException("Signal timed out.", "TimeoutError")),
    ms,
  );
  try {
    return await abortable(promise, timer.signal);
  } finally {
    clearTimeout(id);
  }
}
