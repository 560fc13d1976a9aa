import type { UpstreamMethod } from "../../../tool_source.ts";
import { mcpErrorCodeOf } from "../../mcp_error_code.ts";
import { type Client, ProtocolError, ProtocolErrorCode } from "../../mcp_sdk.ts";
import type { CallingConnection } from "./guarded_call.ts";

/** One resources, prompts or completion request; its signal aborts it. */
interface UpstreamRequest {
  method: UpstreamMethod;
  params: Record<string, unknown>;
  signal: AbortSignal;
}

/**
 * Sends a resources, prompts or completion request (what `toolroute serve` passes on) under the
 * server's request deadline, with the connection's credentials redacted from the answer and from
 * errors, as from a call's. A list of a feature the server did not declare answers empty; any
 * other request for it fails. The connection is held (see `hold`) until the answer is in.
 */
export async function sendUpstreamRequest(
  connection: CallingConnection,
  request: UpstreamRequest,
): Promise<Record<string, unknown>> {
  const { method, signal } = request;
  const release = connection.hold();
  try {
    const client = await connection.readyClient(method, signal);
    try {
      return await sendOn(connection, client, request);
    } catch (error) {
      // Not delivered, as a tool call's (see `callGuarded`): a session the server forgot (also
      // one parked meanwhile), a client built from an era verdict the server no longer fits, a
      // request that never reached the server. The client is dropped; once more on a new one.
      const dropped = connection.undelivered(client, error);
      if (dropped === undefined) throw error;
      await dropped;
      return await sendOn(connection, await connection.readyClient(method, signal), request);
    }
  } catch (error) {
    const redactor = connection.redactor;
    const message = redactor.text(error instanceof Error ? error.message : String(error));
    const code = mcpErrorCodeOf(error);
    throw new ProtocolError(code ?? ProtocolErrorCode.InternalError, message);
  } finally {
    release();
  }
}

/** Sends the request on one client (a feature the server did not declare: see above). */
async function sendOn(
  connection: CallingConnection,
  client: Client,
  request: UpstreamRequest,
): Promise<Record<string, unknown>> {
  const { method, signal } = request;
  const feature = method === "completion/complete" ? "completions" : method.split("/")[0];
  const declared = client.getServerCapabilities() as Record<string, unknown> | undefined;
  if (declared?.[feature] === undefined) {
    if (method in EMPTY_LISTS) return { [EMPTY_LISTS[method]!]: [] };
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `The MCP server "${connection.settings.serverId}" offers no ${feature}`,
    );
  }
  const answer = await sendRequest(client, request, {
    signal,
    timeout: connection.settings.requestTimeoutMs,
  });
  const { redact } = connection.callOptions(undefined);
  return redact({ content: [], structuredContent: answer }).structuredContent!;
}

/** The answer to a list of a feature a server does not offer: its list key, empty. */
const EMPTY_LISTS: Partial<Record<UpstreamMethod, string>> = {
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts",
};

/** Sends one resources, prompts or completion request through the client's own method. */
function sendRequest(
  client: Client,
  request: UpstreamRequest,
  options: { signal: AbortSignal; timeout: number },
): Promise<Record<string, unknown>> {
  const params = request.params as never;
  switch (request.method) {
    case "resources/list":
      return client.listResources(params, options);
    case "resources/templates/list":
      return client.listResourceTemplates(params, options);
    case "resources/read":
      return client.readResource(params, options);
    case "prompts/list":
      return client.listPrompts(params, options);
    case "prompts/get":
      return client.getPrompt(params, options);
    case "completion/complete":
      return client.complete(params, options);
  }
}
