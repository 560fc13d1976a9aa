import { assertEquals } from "@std/assert";
import { EraVerdicts } from "../../../../../src/core/mcp/gateway/connection/era_verdicts.ts";
import type { PriorDiscovery } from "../../../../../src/core/mcp/mcp_sdk.ts";

const modern = (instructions: string): PriorDiscovery => ({
  kind: "modern",
  discover: {
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {} },
    instructions,
  } as unknown as Extract<PriorDiscovery, { kind: "modern" }>["discover"],
});

Deno.test("EraVerdicts keeps one verdict per server, user and target, never another user's", () => {
  const eras = new EraVerdicts();
  const ana = { serverId: "crm", userId: "ana", target: "auto https://crm.example/mcp" };
  const bo = { serverId: "crm", userId: "bo", target: "auto https://crm.example/mcp" };
  const global = { serverId: "crm", target: "auto https://crm.example/mcp" };
  eras.set(ana, modern("ana's"));
  assertEquals(eras.get(ana), modern("ana's"));
  assertEquals(eras.get(bo), undefined);
  assertEquals(eras.get(global), undefined);
  // A changed URL or protocol asks again.
  assertEquals(eras.get({ ...ana, target: "2025 https://crm.example/mcp" }), undefined);
  eras.forget(ana);
  assertEquals(eras.get(ana), undefined);
});

Deno.test("EraVerdicts does not keep a hostile server's huge discover answer, and stays bounded", () => {
  const eras = new EraVerdicts({ maxEntries: 2 });
  const key = { serverId: "s", userId: "u", target: "auto http://h/mcp" };
  eras.set(key, modern("x".repeat(100_000)));
  assertEquals(eras.get(key), undefined);
  eras.set(key, modern("short"));
  eras.set({ ...key, userId: "v" }, { kind: "legacy" });
  eras.set({ ...key, userId: "w" }, { kind: "legacy" });
  assertEquals(eras.size, 2);
  assertEquals(eras.get(key), undefined, "the least recently used went first");
});

Deno.test("EraVerdicts asks a 2025 server again once its verdict is old", async () => {
  const eras = new EraVerdicts({ legacyMaxAgeMs: 1 });
  const key = { serverId: "s", target: "auto http://h/mcp" };
  eras.set(key, { kind: "legacy" });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(eras.get(key), undefined);
});
