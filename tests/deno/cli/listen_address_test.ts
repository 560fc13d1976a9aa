import { assertEquals, assertThrows } from "@std/assert";
import { listenAddress, listenPermission } from "../../../src/deno/cli/listen_address.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

Deno.test("listenAddress() parses host and port, defaulting to loopback", () => {
  assertEquals(listenAddress("8787"), { hostname: "127.0.0.1", port: 8787, loopback: true });
  assertEquals(listenAddress("0.0.0.0:80"), { hostname: "0.0.0.0", port: 80, loopback: false });
  assertEquals(listenAddress("[::1]:9"), { hostname: "::1", port: 9, loopback: true });
  assertEquals(listenPermission(listenAddress("127.0.0.1:0")), "127.0.0.1");
  assertEquals(listenPermission(listenAddress("localhost:1")), "localhost:1");
});

Deno.test("listenAddress() rejects malformed addresses", () => {
  for (const text of ["host", "1.2.3.4:99999", "a:b"]) {
    assertThrows(() => listenAddress(text), UsageError, "Invalid --http address");
  }
});
