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
export function modernEndpoint(
  tools: ToolSet | ToolSetProvider,
  serverOptions: ToolSetServerOptions,
): {
  handle(request: Request, userId: string | undefined, authInfo: unknown): Promise<Response>;
  notifyToolListChanged(userId?: string): void;
  close(): Promise<void>;
} {
  // Kept in order of use: the first entry is the least recently used.
  const byUser = new Map<string, SdkMcpHandler>();
  const handlerOf = (key: string): SdkMcpHandler => {
    const handler = byUser.get(key) ?? createMcpHandler(
      () => toolSetServerForEra(tools, { ...serverOptions, era: "modern" }).sdk,
      // The SDK's "auto" answers JSON unless the call sends something first (progress, logs);
      // its "json" mode prints a warning per handler, and library code prints nothing.
      { legacy: "reject" },
    );
    byUser.delete(key);
    byUser.set(key, handler);
    if (byUser.size > KEPT_USERS) byUser.delete(byUser.keys().next().value!);
    return handler;
  };
  return {
    handle: (request, userId, authInfo) =>
      handlerOf(userId ?? "").fetch(request, { authInfo: authInfo as never }),
    notifyToolListChanged(userId) {
      const targets = userId === undefined ? byUser.values() : [byUser.get(userId)];
      for (const handler of targets) handler?.notify.toolsChanged();
    },
    // Ends every in-flight exchange and listen stream.
    async close() {
      const open = [...byUser.values()];
      byUser.clear();
      await Promise.allSettled(open.map((handler) => handler.close()));
    },
  };
}
