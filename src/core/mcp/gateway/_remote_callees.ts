import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { TELEMETRY_SCOPE, tracingIsOff } from "../../telemetry/call_telemetry.ts";
import { carrierOf, contextFrom } from "../../telemetry/trace_context.ts";
import { isToolError, ToolError } from "../../tool_error.ts";
import type { McpServerConfig } from "../mcp_server_config.ts";
import type { ToolContext, UpstreamMethod } from "../../tool_source.ts";
import type { ToolOutput } from "../../tool_output.ts";
import { AuthorizationRequiredError } from "./oauth/authorization_required_error.ts";
import type { ServerConnection } from "./connection/server_connection.ts";
import type { ToolPins } from "./pinning/tool_pins.ts";
import { keyedScope, type PinScope } from "./pinning/pin_scope.ts";
import type { ConnectionLookup, RemoteCallee } from "./tools/remote_routed_tools.ts";
import type { UserServers } from "./users/user_servers.ts";

/** The gateway's servers as its callees and its resolution read them (the gateway keeps them). */
export interface GatewayServers {
  /** The global servers' connections, by id. */
  readonly global: ReadonlyMap<string, ServerConnection>;
  /** The global servers' configs, by id. */
  readonly globalConfigs: ReadonlyMap<string, McpServerConfig>;
  /** Each user's own servers, and each user's own session with a global server. */
  readonly users: UserServers;
  /** Whether a global server authorizes each user (its calls go on the user's own session). */
  perUser(serverId: string): boolean;
}

/**
 * What a remote tool's call reaches at call time: the connection, behind the pin check (a tool
 * whose definition changed after it was exposed is refused) and the remote call's span. A global
 * server that authorizes each user is reached on the calling user's own connection, never
 * another user's.
 */
export class RemoteCallees {
  #servers: GatewayServers;
  #pins?: ToolPins;
  /** Where the global tier's tools find their connection. */
  readonly global: ConnectionLookup = {
    connection: (id) =>
      this.#servers.perUser(id) && this.#servers.global.has(id)
        ? this.#perUser(id)
        : this.#of(id, undefined, this.#servers.global.get(id)),
  };

  constructor(servers: GatewayServers, pins: ToolPins | undefined) {
    this.#servers = servers;
    this.#pins = pins;
  }

  /**
   * Where one user's own tools find their connection.
   *
   * @returns The lookup (a call of another user is refused by the routed tool).
   */
  user(userId: string): ConnectionLookup {
    const users = this.#servers.users;
    return { userId, connection: (id) => this.#of(id, userId, users.connection(userId, id)) };
  }

  #of(
    serverId: string,
    userId: string | undefined,
    connection: ServerConnection | undefined,
  ): RemoteCallee | undefined {
    if (connection === undefined) return undefined;
    // One callee per connection (a connection serves one server for one user, or globally),
    // kept on it: held as long as the connection, with no table entry per user.
    return (connection.callee ??= new ConnectionCallee(connection, {
      serverId,
      userId,
      pins: this.#pins,
    })) as RemoteCallee;
  }

  /** A global server that authorizes each user: calls and reads go on the user's own session. */
  #perUser(serverId: string): RemoteCallee {
    const own = (userId: string | undefined): ServerConnection => {
      const config = this.#servers.globalConfigs.get(serverId);
      if (config === undefined) {
        throw new ToolError(
          "upstream_unavailable",
          `The MCP server "${serverId}" was removed; expose the tools again`,
        );
      }
      if (userId === undefined) {
        const { message } = new AuthorizationRequiredError(serverId, { perUser: true });
        throw new ToolError("upstream_unavailable", message);
      }
      return this.#servers.users.globalFor(userId, serverId, config);
    };
    return {
      callTool: async (toolName, args, context) =>
        await this.#of(serverId, undefined, own(context.userId))!.callTool(toolName, args, context),
      // A resource or prompt of such a server is read on the user's own session, as a call is.
      request: async (method, params, context) =>
        await own(context.userId).request(method, params, context.signal),
    };
  }
}

/**
 * One connection's callee: the pin check and the span around its calls. Its methods live on the
 * class, not in closures over the connection, so each pooled connection adds only this object.
 */
class ConnectionCallee implements RemoteCallee {
  #connection: ServerConnection;
  #pins?: ToolPins;
  /**
   * Whose pins: a global server's are the calling user's (`userId` is set for a user's own
   * server); kept for the last user, so a run of calls makes no new one.
   */
  #scope: PinScope;

  constructor(
    connection: ServerConnection,
    options: { serverId: string; userId: string | undefined; pins: ToolPins | undefined },
  ) {
    const { serverId, userId } = options;
    this.#connection = connection;
    this.#pins = options.pins;
    this.#scope = keyedScope(
      userId === undefined ? { serverId, global: true } : { serverId, userId },
    );
  }

  // Not async: a call whose tools match their pins (every call but a drift's) is handed to the
  // connection with no frame of its own; a synchronous throw is the caller's rejection
  // (`callRemote`).
  callTool(
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput> {
    const connection = this.#connection;
    const pins = this.#pins;
    let scope = this.#scope;
    if (scope.global === true && scope.userId !== context.userId) {
      this.#scope = scope = keyedScope({
        serverId: scope.serverId,
        userId: context.userId,
        global: true,
      });
    }
    // A tool list already found to match its pins needs no check.
    if (pins !== undefined && !pins.verified(scope, connection.tools)) {
      return this.#checked(pins, scope, { toolName, args, context });
    }
    return this.#call(scope, { toolName, args, context });
  }

  /** Calls after the pin check of a tool list not yet found to match its pins. */
  async #checked(
    pins: ToolPins,
    scope: PinScope,
    call: { toolName: string; args: Record<string, unknown>; context: ToolContext },
  ): Promise<ToolOutput> {
    const { toolName } = call;
    const refusal = await pins.refusal(scope, toolName, this.#connection.tools);
    if (refusal !== undefined) {
      throw new ToolError("permission_denied", `Tool "${toolName}" was not called: ${refusal}`);
    }
    return await this.#call(scope, call);
  }

  #call(
    scope: PinScope,
    call: { toolName: string; args: Record<string, unknown>; context: ToolContext },
  ): Promise<ToolOutput> {
    const { toolName, args, context } = call;
    const connection = this.#connection;
    // Without an SDK a client span would only repeat the caller's context: no span, no closure.
    if (tracingIsOff()) return connection.callTool(toolName, args, context);
    return traced(
      { serverId: scope.serverId, toolName, context },
      (traced) => connection.callTool(toolName, args, traced),
    );
  }

  request(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    context: { signal: AbortSignal },
  ): Promise<Record<string, unknown>> {
    return this.#connection.request(method, params, context.signal);
  }
}

/**
 * Runs one remote MCP `tools/call` inside a client span (`tools/call {tool}`, a child of the
 * tool call's span), and hands the call a context whose `trace` is that span, so the request's
 * `_meta` carries it upstream.
 */
async function traced<T>(
  call: { serverId: string; toolName: string; context: ToolContext },
  run: (context: ToolContext) => Promise<T>,
): Promise<T> {
  const { serverId, toolName, context } = call;
  const span = trace.getTracer(TELEMETRY_SCOPE).startSpan(`tools/call ${toolName}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": toolName,
      "toolroute.mcp.server.id": serverId,
    },
  }, contextFrom(context.trace));
  const own = carrierOf(span.spanContext());
  const baggage = context.trace?.baggage;
  const carrier = own === undefined || baggage === undefined ? own : { ...own, baggage };
  try {
    return await run(carrier === undefined ? context : { ...context, trace: carrier });
  } catch (error) {
    span.setAttribute("error.type", isToolError(error) ? error.code : "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
