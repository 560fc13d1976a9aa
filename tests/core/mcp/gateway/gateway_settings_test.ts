import { assertEquals, assertThrows } from "@std/assert";
import { gatewaySettings } from "../../../../src/core/mcp/gateway/gateway_settings.ts";

Deno.test("gatewaySettings() applies the documented defaults", () => {
  const { settings, userIdleMs, maxUserConnections, maxResultChars } = gatewaySettings(
    {},
    () => {},
  );
  assertEquals(settings.requestTimeoutMs, 60_000);
  assertEquals(settings.connectTimeoutMs, 10_000);
  assertEquals(maxResultChars, 100_000);
  assertEquals(settings.maxResponseBytes, 64 * 1024 * 1024);
  assertEquals(settings.reconnect, {
    initialDelayMs: 250,
    maxDelayMs: 30_000,
    factor: 2,
    attempts: 4,
  });
  assertEquals([userIdleMs, maxUserConnections], [600_000, 1000]);
  assertEquals([settings.maxTotalTimeoutMs, settings.toolListTtlMs], [undefined, undefined]);
});

Deno.test("gatewaySettings() rejects bad numbers with a RangeError naming the option", () => {
  for (
    const [options, name] of [
      [{ requestTimeoutMs: -1 }, "requestTimeoutMs"],
      [{ connectTimeoutMs: Infinity }, "connectTimeoutMs"],
      [{ maxUserConnections: 0 }, "maxUserConnections"],
      [{ reconnect: { factor: Number.NaN } }, "reconnect.factor"],
    ] as const
  ) {
    assertThrows(() => gatewaySettings(options, () => {}), RangeError, `"${name}"`);
  }
  assertThrows(
    () => gatewaySettings({ allowedHosts: "x" as unknown as string[] }, () => {}),
    TypeError,
    "allowedHosts",
  );
});
