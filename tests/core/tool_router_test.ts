import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import { z } from "zod";
import {
  defineMcpService,
  defineTool,
  type FunctionTool,
  type SourceKind,
  ToolRouter,
} from "../../mod.ts";
import type { BuiltinSource, GatewaySource, RoutedTool } from "../../src/core/unstable_source.ts";

const fn = (name: string, text = name) =>
  defineTool({
    name,
    description: `${name} tool`,
    input: z.object({}),
    run: () => `function:${text}`,
  });

function fake(name: string, source: SourceKind, userId?: string): RoutedTool {
  return {
    name,
    description: name,
    inputSchema: { type: "object" },
    source,
    origin: name,
    execute: (_args, ctx) => `${source}:${name}:${ctx.userId ?? "-"}${userId ? `:${userId}` : ""}`,
  };
}

const builtins: BuiltinSource = {
  names: ["read_file"],
  resolve: (names) => ({
    tools: names.includes("read_file") ? [fake("read_file", "builtin")] : [],
    missing: names.filter((n) => n !== "read_file").map((name) => ({
      selection: "builtins",
      name,
      reason: "unknown",
    })),
  }),
};

const gateway: GatewaySource = {
  resolve: ({ serverIds, userId }) =>
    Promise.resolve({
      user: userId && serverIds.includes("mine")
        ? [fake("search", "user_mcp", userId), fake("read_file", "user_mcp")]
        : [],
      global: serverIds.includes("web")
        ? [fake("search", "global_mcp"), fake("fetch", "global_mcp")]
        : [],
      missing: [],
    }),
  serverIds: (userId) => userId ? ["mine", "web"] : ["web"],
};

Deno.test("expose() applies priority builtin > user_mcp > local_mcp > function > global_mcp", async () => {
  const service = defineMcpService({
    name: "local",
    tools: { search: { description: "d", input: z.object({}), run: () => "local" } },
  });
  const router = new ToolRouter({
    functions: [fn("local_search"), fn("fetch")],
    mcpServices: [service],
    builtins,
    gateway,
  });
  const tools = await router.expose({
    builtins: ["read_file"],
    mcpServers: ["mine", "web"],
    mcpServices: ["local"],
    functions: ["local_search", "fetch"],
    userId: "alice",
  });
  assertEquals(tools.names, ["fetch", "local_search", "read_file", "search"]);
  assertEquals(tools.shadowed, [
    { name: "read_file", winner: "builtin", hidden: ["user_mcp"] },
    { name: "local_search", winner: "local_mcp", hidden: ["function"] },
    { name: "search", winner: "user_mcp", hidden: ["global_mcp"] },
    { name: "fetch", winner: "function", hidden: ["global_mcp"] },
  ]);
  assertEquals(await tools.invoke("search"), "user_mcp:search:alice:alice");
  assertEquals(await tools.invoke("local_search"), "local");
  assertEquals(await tools.invoke("fetch"), "function:fetch");
});

Deno.test("expose() exposes only what is named and reports unknown names in missing", async () => {
  const router = new ToolRouter({ functions: [fn("a"), fn("b")] });
  const tools = await router.expose({
    functions: ["a", "zzz"],
    mcpServices: ["none"],
    mcpServers: ["x"],
    builtins: ["bash"],
  });
  assertEquals(tools.names, ["a"]);
  assertEquals(tools.missing, [
    { selection: "builtins", name: "bash", reason: "no built-in tools are registered" },
    { selection: "mcpServers", name: "x", reason: "no MCP gateway is registered" },
    { selection: "mcpServices", name: "none", reason: "no local MCP service has this name" },
    { selection: "functions", name: "zzz", reason: "no function tool has this name" },
  ]);
  assertEquals((await tools.call("b", "{}")).code, "unknown_tool");
  assertEquals((await router.expose()).names, []);
});

Deno.test("expose() takes the user id from the selection, never from a tool name", async () => {
  const router = new ToolRouter({ gateway });
  const bob = await router.expose({ mcpServers: ["mine", "web"], userId: "bob" });
  assertEquals(await bob.invoke("search"), "user_mcp:search:bob:bob");
  const anonymous = await router.expose({ mcpServers: ["mine", "web"] });
  assertEquals(await anonymous.invoke("search"), "global_mcp:search:-");
  assertEquals((await anonymous.call("alice_search")).code, "unknown_tool");
});

Deno.test("expose() throws a TypeError for a malformed selection", async () => {
  const router = new ToolRouter();
  // deno-lint-ignore no-explicit-any
  const bad = (selection: any) => assertRejects(() => router.expose(selection), TypeError);
  await bad(null);
  await bad({ functions: "a" });
  await bad({ functions: [1] });
  await bad({ userId: "" });
  await bad({ userId: 5 });
});

Deno.test("new ToolRouter() throws a TypeError naming both tools of a duplicate name", () => {
  const error = assertThrows(
    () => new ToolRouter({ functions: [fn("a", "1"), fn("a", "2")] }),
    TypeError,
  );
  assertEquals(error.message.includes('"a"'), true);
  const service = (name: string, tool: string) =>
    defineMcpService({
      name,
      tools: { [tool]: { description: "d", input: z.object({}), run: () => "" } },
    });
  assertThrows(
    () => new ToolRouter({ mcpServices: [service("s", "x"), service("s", "y")] }),
    TypeError,
    'service named "s"',
  );
  const clash = assertThrows(
    () => new ToolRouter({ mcpServices: [service("a", "b_c"), service("a_b", "c")] }),
    TypeError,
  );
  assertEquals(
    clash.message,
    'Cannot register MCP service "a_b": tools "a/b_c" and "a_b/c" are both exposed as "a_b_c"; rename one',
  );
});

Deno.test("new ToolRouter() throws for non-tools and bad settings", () => {
  assertThrows(
    () => new ToolRouter({ functions: [{ name: "x" } as unknown as FunctionTool] }),
    TypeError,
    "defineTool",
  );
  assertThrows(() => new ToolRouter({ timeoutMs: 0 }), RangeError, "timeoutMs");
  assertThrows(() => new ToolRouter({ maxResultChars: Number.NaN }), RangeError, "maxResultChars");
});

Deno.test("addFunction() and addMcpService() register after construction, with the same checks", async () => {
  const router = new ToolRouter();
  router.addFunction(fn("late"));
  assertThrows(() => router.addFunction(fn("late")), TypeError);
  router.addMcpService(
    defineMcpService({
      name: "svc",
      tools: {
        t: {
          description: "d",
          input: z.object({}),
          run: () => "svc",
        },
      },
    }),
  );
  const tools = await router.expose({ functions: ["late"], mcpServices: ["svc"] });
  assertEquals(tools.names, ["late", "svc_t"]);
});

Deno.test("invoke() on the router calls any registered tool in priority order (host side)", async () => {
  const router = new ToolRouter({ functions: [fn("read_file"), fn("only_fn")], builtins, gateway });
  assertEquals(await router.invoke("read_file"), "builtin:read_file:-");
  assertEquals(await router.invoke("only_fn"), "function:only_fn");
  assertEquals(
    await router.invoke("search", {}, { userId: "carol" }),
    "user_mcp:search:carol:carol",
  );
  assertEquals(await router.invoke("search"), "global_mcp:search:-");
  assertEquals((await router.invoke("nothing")).startsWith('Unknown tool "nothing"'), true);
});

Deno.test("close() closes the gateway and the built-ins, and works with await using", async () => {
  const closed: string[] = [];
  {
    await using _router = new ToolRouter({
      builtins: { ...builtins, close: () => Promise.resolve(void closed.push("builtins")) },
      gateway: { ...gateway, close: () => Promise.resolve(void closed.push("gateway")) },
    });
  }
  assertEquals(closed.sort(), ["builtins", "gateway"]);
});
