import { numberAtLeast } from "../../check_positive.ts";
import { checkStore } from "./pin_store.ts";
import type { McpGatewayEvent, McpGatewayOptions } from "./mcp_gateway_types.ts";
import type { ConnectionSettings } from "./connection/connection_settings.ts";
import { SharedSchemaValidator } from "./connection/shared_schema_validator.ts";
import { SharedToolDefinitions } from "./connection/shared_tool_definitions.ts";
import { EraVerdicts } from "./connection/era_verdicts.ts";
import { REMOTE_TEXT_DEFAULTS } from "./tools/remote_tool_guard.ts";

/**
 * Checks the gateway's options (a `RangeError` names a bad number, a `TypeError` a bad object)
 * and applies the defaults.
 *
 * @param emit Delivers events; default: to `onEvent`, whose failure is ignored.
 */
export function gatewaySettings(
  options: McpGatewayOptions,
  emit = (event: McpGatewayEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // An observer's failure must not change the gateway.
    }
  },
) {
  const reconnect = options.reconnect ?? {};
  const number = (name: string, value: number | undefined, fallback: number, min = 1) =>
    numberAtLeast(value, name, { where: "Cannot create McpGateway", min, fallback });
  if (options.allowedHosts !== undefined && !Array.isArray(options.allowedHosts)) {
    throw new TypeError('Cannot create McpGateway: "allowedHosts" must be an array of host names');
  }
  const { oauth, toolNames } = options;
  if (oauth !== undefined && typeof oauth?.attach !== "function") {
    throw new TypeError(
      'Cannot create McpGateway: "oauth" must be a McpOAuth (new McpOAuth({ … }))',
    );
  }
  const store = toolNames?.store;
  if (toolNames !== undefined) {
    checkStore(store, { name: "toolNames.store", methods: ["get", "set"] });
  }
  const requestTimeoutMs = number("requestTimeoutMs", options.requestTimeoutMs, 60_000);
  return {
    settings: {
      requestTimeoutMs,
      connectTimeoutMs: number("connectTimeoutMs", options.connectTimeoutMs, 10_000),
      maxTotalTimeoutMs: options.maxTotalTimeoutMs === undefined
        ? undefined
        : number("maxTotalTimeoutMs", options.maxTotalTimeoutMs, 0),
      progressTokens: oneOf("progressTokens", options.progressTokens, ["auto", "always"]),
      toolListTtlMs: options.toolListTtlMs === undefined
        ? undefined
        : number("toolListTtlMs", options.toolListTtlMs, 0, 0),
      maxMediaBytes: number("maxMediaBytes", options.maxMediaBytes, 16 * 1024 * 1024),
      maxResponseBytes: number("maxResponseBytes", options.maxResponseBytes, 64 * 1024 * 1024),
      reconnect: {
        initialDelayMs: number("reconnect.initialDelayMs", reconnect.initialDelayMs, 250, 0),
        maxDelayMs: number("reconnect.maxDelayMs", reconnect.maxDelayMs, 30_000, 0),
        factor: number("reconnect.factor", reconnect.factor, 2),
        attempts: number("reconnect.maxAttemptsPerCall", reconnect.maxAttemptsPerCall, 4),
      },
      fetch: options.fetch,
      allowedHosts: options.allowedHosts ? [...options.allowedHosts] : undefined,
      // One validator and one compiled schema per distinct definition for every connection.
      jsonSchemaValidator: new SharedSchemaValidator(options.jsonSchemaValidator),
      toolDefinitions: new SharedToolDefinitions(),
      // The era each connection found, kept past the connection (per server and user).
      eras: new EraVerdicts(),
      transportFactory: options.transportFactory,
      eventStream: oneOf("eventStream", options.eventStream, ["session", "always"]),
      onElicitation: options.onElicitation,
      relayElicitation: options.relayElicitation === true,
      oauth,
      emit,
    } satisfies Omit<ConnectionSettings, "serverId" | "userId" | "config">,
    /** Where the last known tool lists are kept across runs. */
    toolNames: store,
    userIdleMs: number("userIdleMs", options.userIdleMs, 600_000),
    listWaitMs: options.listWaitMs === Infinity
      ? Infinity
      : number("listWaitMs", options.listWaitMs, Infinity, 0),
    maxUserConnections: number("maxUserConnections", options.maxUserConnections, 1000),
    maxResultChars: number("maxResultChars", options.maxResultChars, 100_000),
    remoteText: {
      maxDescriptionChars: number(
        "maxDescriptionChars",
        options.maxDescriptionChars,
        REMOTE_TEXT_DEFAULTS.maxDescriptionChars,
      ),
      maxToolListChars: number(
        "maxToolListChars",
        options.maxToolListChars,
        REMOTE_TEXT_DEFAULTS.maxToolListChars,
      ),
    },
  };
}

/** A value of a few words, the first the default; a `RangeError` for any other. */
function oneOf<const T extends string>(
  name: string,
  value: T | undefined,
  choices: readonly T[],
): T {
  if (value === undefined) return choices[0];
  if (choices.includes(value)) return value;
  throw new RangeError(
    `Cannot create McpGateway: "${name}" must be ${
      choices.map((choice) => `"${choice}"`).join(" or ")
    }, received ${JSON.stringify(value)}`,
  );
}
