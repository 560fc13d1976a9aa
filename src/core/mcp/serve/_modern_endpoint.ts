import { createMcpHandler, type SdkMcpHandler } from "../mcp_sdk.ts";
import type { ToolSet } from "../../tool_set.ts";
import {
  type ToolSetProvider,
  toolSetServerForEra,
  type ToolSetServerOptions,
} from "./tool_set_server.ts";

/** Users whose endpoint is kept; past it the least recently used one is let go. */
const KEPT_USERS = 4096;

/**
 * The 2026-07-28 side of `serve`'s HTTP endpoint: no session and no `initialize`; every request
 * is answered by a fresh server from the SDK's `createMcpHandler` (`legacy: "reject"`: 2025
 * traffic is routed elsewhere before it gets here). Answers are JSON unless the call sends progress
 * or logs first (then SSE). Each user has an endpoint of their own, so a
 * `subscriptions/listen` stream hears only its own user's tool-list changes. An endpoint let go
 * (past 4096 users) is not closed: its calls finish, its listen streams stop hearing changes
 * until the client listens again.
 */
export class ModernEndpoint {
  #tools: ToolSet | ToolSetProvider;
  #serverOptions: ToolSetServerOptions;
  #byUser = new Map<string, SdkMcpHandler>();

  constructor(tools: ToolSet | ToolSetProvider, serverOptions: ToolSetServerOptions) {
    this.#tools = tools;
    this.#serverOptions = serverOptions;
  }

  /** Answers one 2026-07-28 request of an authenticated user (its body unread). */
  handle(
    request: Request,
    options: { userId: string | undefined; authInfo: unknown },
  ): Promise<Response> {
    const handler = this.#handlerOf(options.userId ?? "");
    return handler.fetch(request, { authInfo: options.authInfo as never });
  }

  /** Publishes `notifications/tools/list_changed` on the listen streams of one user, or all. */
  notifyToolListChanged(userId?: string): void {
    if (userId === undefined) {
      for (const handler of this.#byUser.values()) handler.notify.toolsChanged();
    } else this.#byUser.get(userId)?.notify.toolsChanged();
  }

  /** Ends every in-flight exchange and listen stream. */
  async close(): Promise<void> {
    const open = [...this.#byUser.values()];
    this.#byUser.clear();
    await Promise.allSettled(open.map((handler) => handler.close()));
  }

  #handlerOf(key: string): SdkMcpHandler {
    let handler = this.#byUser.get(key);
    if (handler !== undefined) {
      // Kept in order of use: the first entry is the least recently used.
      this.#byUser.delete(key);
      this.#byUser.set(key, handler);
      return handler;
    }
    const tools = this.#tools;
    const serverOptions = this.#serverOptions;
    handler = createMcpHandler(
      () => toolSetServerForEra(tools, { ...serverOptions, era: "modern" }).sdk,
      // The SDK's "auto" answers JSON unless the call sends something first (progress, logs);
      // its "json" mode prints a warning per handler, and library code prints nothing.
      { legacy: "reject" },
    );
    this.#byUser.set(key, handler);
    if (this.#byUser.size > KEPT_USERS) this.#byUser.delete(this.#byUser.keys().next().value!);
    return handler;
  }
}
