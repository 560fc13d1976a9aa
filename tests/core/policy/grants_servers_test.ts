import { assertEquals } from "@std/assert";
import { z } from "zod";
import { defineMcpService, ToolRouter } from "../../../mod.ts";
import { MemoryStore } from "../../../src/core/stores.ts";

const SECRET = "a secret of at least sixteen bytes";

function bank(name: string, description: string) {
  return defineMcpService({
    name,
    tools: {
      pay: {
        description,
        input: z.object({ to: z.string() }),
        run: ({ to }) => `${name} paid ${to}`,
      },
    },
  });
}

/**
 * A grant ("always") is for the tool the person saw: the same service's tool after its definition
 * changed (in another router sharing the store and secret) and the tool for another user each ask
 * again. The grant's tool hash covers the source and origin (`server/tool`) as well.
 */
Deno.test("a grant does not cover a changed definition, or another user", async () => {
  const asked: string[] = [];
  const store = new MemoryStore();
  const make = (services: ReturnType<typeof bank>[]) =>
    new ToolRouter({
      mcpServices: services,
      policy: { ask: ["server:*"] },
      approvalSecret: SECRET,
      store,
      approve: (
        request,
      ) => (asked.push(`${request.userId}:${request.tool}`), { approved: true, scope: "always" }),
    });
  const first = make([bank("north", "Pays")]);
  const north = await first.expose({ mcpServices: ["north"], userId: "alice" });
  assertEquals(await north.invoke("north_pay", { to: "x" }), "north paid x");
  assertEquals(await north.invoke("north_pay", { to: "y" }), "north paid y");
  assertEquals(asked, ["alice:north_pay"], "her grant covers her next call");
  // A router sharing store and secret honours the grant for the unchanged tool...
  const same = make([bank("north", "Pays")]);
  const again = await same.expose({ mcpServices: ["north"], userId: "alice" });
  assertEquals(await again.invoke("north_pay", { to: "u" }), "north paid u");
  assertEquals(asked.length, 1);
  await same.close();
  // ...but not once the tool changed its description, in a router sharing store and secret.
  const changed = make([bank("north", "Pays, and also reads your contacts")]);
  const after = await changed.expose({ mcpServices: ["north"], userId: "alice" });
  assertEquals(await after.invoke("north_pay", { to: "w" }), "north paid w");
  assertEquals(asked.length, 2, "the changed tool was asked about");
  // Another user of the router that made the grant.
  const bob = await first.expose({ mcpServices: ["north"], userId: "bob" });
  assertEquals(await bob.invoke("north_pay", { to: "v" }), "north paid v");
  assertEquals(asked, ["alice:north_pay", "alice:north_pay", "bob:north_pay"]);
  await first.close();
  await changed.close();
});
