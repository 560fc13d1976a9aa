import type { ToolSet } from "../../tool_set.ts";
import type { UpstreamMethod, UpstreamServer } from "../../tool_source.ts";
import { ProtocolError, ProtocolErrorCode, UriTemplate } from "../mcp_sdk.ts";
import { assignRemoteToolNames } from "../gateway/tools/remote_tool_names.ts";
import { escapeRemoteResult } from "../gateway/tools/remote_text.ts";
import { toApiFunctionName } from "../../api_function_name.ts";
import { boundedList } from "./_bounded_list.ts";
import { looksServed, parseServed, servedLinks, servedUri } from "./_served_uri.ts";

interface Listed {
  server: UpstreamServer;
  views: readonly string[];
  entries: Record<string, unknown>[];
}

/**
 * The resources, prompts and completions of the MCP servers one request's tool set comes from
 * (see `ToolSet#upstreams`), as `serve` offers them: only servers the user may see (at least one
 * of their tools is in the user's tool set), each on the user's own connection.
 *
 * Names follow the tools' rule: a prompt keeps its name where no other of the user's servers
 * offers it, else it is qualified with the server id (`SERVER_NAME`). A resource keeps its URI
 * where only one server offers it (lists it, names it as a tool's view, or matches it with a
 * template); a URI two servers offer, and any URI of the `toolroute:` scheme (as a client that
 * parses it as a URL reads it: in any case, after spaces), is listed as `toolroute://SERVER/URI`,
 * which reads from that server. A URI no visible server offers is answered exactly as one of a
 * server the user may not see: not found. While a server's prompts cannot be listed, its
 * qualified names (`SERVER_…`) lead to no other server. Everything a server answers is escaped
 * like a remote tool's result.
 */
export class UpstreamFeatures {
  #servers: { server: UpstreamServer; views: string[] }[];
  // Ids of the selected servers that are not up now (the tool set's missing ones).
  #absent: string[];
  #context: { signal: AbortSignal; userId?: string };

  constructor(toolSet: ToolSet, signal: AbortSignal) {
    this.#servers = toolSet.upstreams();
    this.#absent = toolSet.missing.filter((entry) => entry.selection === "mcpServers")
      .map((entry) => entry.name);
    this.#context = { signal, userId: toolSet.userId };
  }

  /** `resources/list`: every visible server's resources and tools' views. */
  async listResources(): Promise<{ resources: Record<string, unknown>[] }> {
    return { resources: await this.#listShown("resources/list", "resources", "uri") };
  }

  /** `resources/templates/list`: every visible server's resource templates. */
  async listTemplates(): Promise<{ resourceTemplates: Record<string, unknown>[] }> {
    const method = "resources/templates/list";
    return { resourceTemplates: await this.#listShown(method, "resourceTemplates", "uriTemplate") };
  }

  /** `resources/read`: from the one visible server that offers the URI, as the client named it. */
  async read(uri: string): Promise<Record<string, unknown>> {
    const { server, own } = await this.#owner(uri);
    const answer = await this.#send(server, "resources/read", { uri: own });
    if (!Array.isArray(answer.contents)) return answer;
    // A content's URI in serve's own form that the server made up (another server's, say) is
    // shown as this server's, like a link it returns.
    const contents = (answer.contents as Record<string, unknown>[]).map((entry) =>
      entry?.uri === own
        ? { ...entry, uri }
        : typeof entry?.uri === "string" && looksServed(entry.uri)
        ? { ...entry, uri: servedUri(server.id, entry.uri) }
        : entry
    );
    return { ...answer, contents };
  }

  /** `prompts/list`: every visible server's prompts, named as tools are. */
  async listPrompts(): Promise<{ prompts: Record<string, unknown>[] }> {
    const { lists, names } = await this.#prompts();
    const exposed = new Map<string, string>();
    for (const [name, target] of names) {
      exposed.set(`${target.serverId}\u0000${target.toolName}`, name);
    }
    const prompts = lists.flatMap(({ server, entries }) =>
      entries.flatMap((entry) => {
        const name = exposed.get(`${server.id}\u0000${String(entry.name)}`);
        return name === undefined ? [] : [{ ...entry, name }];
      })
    );
    return { prompts };
  }

  /** `prompts/get`: from the server whose prompt the name leads to; its links read back. */
  async getPrompt(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { server, name } = await this.#prompt(String(params.name));
    const answer = await this.#send(server, "prompts/get", { ...params, name });
    if (!Array.isArray(answer.messages)) return answer;
    const messages = (answer.messages as Record<string, unknown>[]).map((message) => {
      const content = message?.content;
      const served = servedLinks([content], server.id)[0];
      return served === content ? message : { ...message, content: served };
    });
    return { ...answer, messages };
  }

  /** `completion/complete`: from the server whose prompt or resource template `ref` names. */
  async complete(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    if (ref?.type === "ref/prompt") {
      const { server, name } = await this.#prompt(String(ref.name));
      return await this.#send(server, "completion/complete", { ...params, ref: { ...ref, name } });
    }
    if (ref?.type === "ref/resource") {
      const uri = String(ref.uri);
      let target = this.#named(uri);
      if (target === undefined) {
        const lists = await this.#listAll("resources/templates/list", "resourceTemplates");
        const offering = lists.filter((listed) =>
          listed.entries.some((entry) => entry.uriTemplate === uri)
        );
        if (offering.length !== 1) throw notFound(uri);
        target = { server: offering[0].server, own: uri };
      }
      return await this.#send(target.server, "completion/complete", {
        ...params,
        ref: { ...ref, uri: target.own },
      });
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Unknown completion reference");
  }

  #visible(serverId: string): UpstreamServer | undefined {
    return this.#servers.find((entry) => entry.server.id === serverId)?.server;
  }

  /** The visible server a `toolroute://` URI names (not found: none); `undefined` for another. */
  #named(uri: string): { server: UpstreamServer; own: string } | undefined {
    const served = parseServed(uri);
    if (served === undefined) return undefined;
    const server = this.#visible(served.serverId);
    if (server === undefined) throw notFound(uri);
    return { server, own: served.uri };
  }

  /** The one visible server that offers a URI, and the URI it knows it by. */
  async #owner(uri: string): Promise<{ server: UpstreamServer; own: string }> {
    const named = this.#named(uri);
    if (named !== undefined) return named;
    const [resources, templates] = await Promise.all([
      this.#listAll("resources/list", "resources"),
      this.#listAll("resources/templates/list", "resourceTemplates"),
    ]);
    const offering = new Set<UpstreamServer>();
    for (const { server, views } of this.#servers) if (views.includes(uri)) offering.add(server);
    for (const { server, entries } of resources) {
      if (entries.some((entry) => entry.uri === uri)) offering.add(server);
    }
    for (const { server, entries } of templates) {
      if (entries.some((entry) => matches(entry.uriTemplate, uri))) offering.add(server);
    }
    if (offering.size === 0) throw notFound(uri);
    if (offering.size > 1) {
      // A server may not claim another's resource (a forged view shown as the other's app):
      // which one the client means cannot be told, so neither is read.
      const forms = [...offering].map((server) => servedUri(server.id, uri)).join(", ");
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Resource ${uri} is offered by more than one server; none is read. Read one of ${forms}`,
        { uri },
      );
    }
    return { server: [...offering][0], own: uri };
  }

  /** Every visible server's prompts, and the exposed names leading to them. */
  async #prompts() {
    const lists = await this.#listAll("prompts/list", "prompts");
    const names = assignRemoteToolNames(lists.map(({ server, entries }) => ({
      serverId: server.id,
      toolNames: entries.map((entry) => String(entry.name)),
    })));
    // A server whose list cannot be had now (down, slow) would leave its qualified names
    // (`bank_summary`) free for another server's prompt of that literal name: a client's request
    // meant for it, arguments and all, would reach that other server. No other server gets them.
    const answered = new Set(lists.map(({ server }) => server.id));
    // A server that is down altogether is not visible, and its names are reserved all the same.
    const missing = [
      ...this.#servers.map(({ server }) => server.id).filter((id) => !answered.has(id)),
      ...this.#absent,
    ].map((id) => ({ id, prefix: toApiFunctionName(id, "x").slice(0, -1) }));
    for (const [name, target] of names) {
      if (missing.some(({ id, prefix }) => target.serverId !== id && name.startsWith(prefix))) {
        names.delete(name);
      }
    }
    return { lists, names };
  }

  async #prompt(name: string): Promise<{ server: UpstreamServer; name: string }> {
    const { names } = await this.#prompts();
    const target = names.get(name);
    const server = target === undefined ? undefined : this.#visible(target.serverId);
    if (target === undefined || server === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${name}`);
    }
    return { server, name: target.toolName };
  }

  /**
   * One list of every visible server (with the tools' views for resources), each URI the
   * server's own where only it offers it, else in the `toolroute://` form.
   */
  async #listShown(
    method: UpstreamMethod,
    key: string,
    uriKey: "uri" | "uriTemplate",
  ): Promise<Record<string, unknown>[]> {
    const lists = (await this.#listAll(method, key)).map(({ server, views, entries }) => {
      if (uriKey !== "uri") return { server, entries };
      const own = entries.map((entry) => String(entry.uri));
      const extra = views.filter((view) => !own.includes(view))
        .map((uri) => ({ uri, name: `${server.id} view` }));
      return { server, entries: [...entries, ...extra] as Record<string, unknown>[] };
    });
    const owners = new Map<string, number>();
    for (const { entries } of lists) {
      for (const uri of new Set(entries.map((entry) => String(entry[uriKey])))) {
        owners.set(uri, (owners.get(uri) ?? 0) + 1);
      }
    }
    return lists.flatMap(({ server, entries }) =>
      entries.map((entry) => {
        const uri = String(entry[uriKey]);
        const shown = owners.get(uri) === 1 && !looksServed(uri) ? uri : servedUri(server.id, uri);
        return { ...entry, [uriKey]: shown };
      })
    );
  }

  /** One list of every visible server, each bounded; a server that fails it is left out. */
  async #listAll(method: UpstreamMethod, key: string): Promise<Listed[]> {
    const settled = await Promise.allSettled(
      this.#servers.map(async ({ server, views }) => ({
        server,
        views,
        entries: await boundedList(key, (params) => this.#send(server, method, params)),
      })),
    );
    return settled.flatMap((outcome) => outcome.status === "fulfilled" ? [outcome.value] : []);
  }

  #send(
    server: UpstreamServer,
    method: UpstreamMethod,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    // Escaped as a remote tool's result and list are: names, descriptions, texts and completion
    // values reach the client's person and model (base64 bytes have nothing to escape).
    return server.request(method, params, this.#context).then((answer) =>
      escapeRemoteResult({ structuredContent: answer }).structuredContent
    );
  }
}

function matches(template: unknown, uri: string): boolean {
  if (typeof template !== "string") return false;
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/** The answer for a URI no visible server offers: the same for one of a hidden server. */
function notFound(uri: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
}
