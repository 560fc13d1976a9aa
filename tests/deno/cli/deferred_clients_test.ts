import { assertEquals } from "@std/assert";
import type { ToolSet } from "../../../mod.ts";
import { DeferredClients } from "../../../src/deno/cli/deferred_clients.ts";

const set = (names: string[]) => ({ names }) as unknown as ToolSet;

Deno.test("a client starts from its last set's names; others from the kept tools", () => {
  const clients = new DeferredClients(["read_file"]);
  const alice = clients.key("alice", "s1");
  assertEquals(clients.keepOf(alice), ["read_file"]);
  clients.remember(alice, set(["search_tools", "read_file", "glob"]));
  assertEquals(clients.keepOf(alice), ["read_file", "glob"]);
  assertEquals(clients.keepOf(clients.key("alice", "s2")), ["read_file"]);
  assertEquals(clients.keepOf(clients.key("bob", "s1")), ["read_file"]);
  // A user id that looks like the start of another's key is another user.
  assertEquals(clients.keepOf(clients.key('alice","s1', undefined)), ["read_file"]);
});

Deno.test("one user opening session after session keeps at most 64 remembered, not others'", () => {
  const clients = new DeferredClients([]);
  const bob = clients.key("bob", "b");
  clients.remember(bob, set(["search_tools", "x"]));
  for (let index = 0; index < 70; index++) {
    clients.remember(clients.key("mallory", `m${index}`), set(["search_tools", "y"]));
  }
  assertEquals(clients.keepOf(clients.key("mallory", "m0")), []);
  assertEquals(clients.keepOf(clients.key("mallory", "m5")), []);
  assertEquals(clients.keepOf(clients.key("mallory", "m6")), ["y"]);
  assertEquals(clients.keepOf(clients.key("mallory", "m69")), ["y"]);
  assertEquals(clients.keepOf(bob), ["x"]);
});
