import { assertEquals } from "@std/assert";
import { z } from "zod";
import { resolveSelection } from "../../src/core/tool_selection.ts";
import { ToolRegistry } from "../../src/core/tool_registry.ts";
import { defineTool } from "../../mod.ts";

Deno.test("resolveSelection() ignores repeated names", async () => {
  const registry = new ToolRegistry();
  registry.addFunction(
    defineTool({ name: "t", description: "d", input: z.object({}), run: () => "" }),
  );
  const resolved = await resolveSelection({ functions: ["t", "t", "t"] }, { registry });
  assertEquals([resolved.tools.length, resolved.shadowed, resolved.missing], [1, [], []]);
});

Deno.test("resolveSelection() passes the request's context to the built-in slot", async () => {
  const seen: unknown[] = [];
  await resolveSelection({ builtins: ["read_file"], context: { workspace: "/ws" } }, {
    registry: new ToolRegistry(),
    builtins: {
      names: ["read_file"],
      resolve: (_names, context) => (seen.push(context), { tools: [], missing: [] }),
    },
  });
  assertEquals(seen, [{ workspace: "/ws" }]);
});

Deno.test("resolveSelection() passes the request's user to the built-in slot (its principal)", async () => {
  const seen: unknown[] = [];
  const builtins = {
    names: ["bash"],
    resolve: (_names: readonly string[], _context: unknown, request: unknown) => (
      seen.push(request), { tools: [], missing: [] }
    ),
  };
  await resolveSelection({ builtins: ["bash"], userId: "alice" }, {
    registry: new ToolRegistry(),
    builtins,
  });
  await resolveSelection({ builtins: ["bash"] }, { registry: new ToolRegistry(), builtins });
  assertEquals(seen, [{ userId: "alice" }, { userId: undefined }]);
});

Deno.test("resolveSelection() passes server ids, user and signal to the gateway", async () => {
  const seen: unknown[] = [];
  const signal = new AbortController().signal;
  await resolveSelection({ mcpServers: ["a", "b"], userId: "u", signal }, {
    registry: new ToolRegistry(),
    gateway: {
      resolve: (
        request,
      ) => (seen.push(request), Promise.resolve({ user: [], global: [], missing: [] })),
      serverIds: () => [],
    },
  });
  assertEquals(seen, [{ serverIds: ["a", "b"], userId: "u", signal }]);
});
