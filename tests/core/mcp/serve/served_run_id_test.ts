import { assertEquals, assertThrows } from "@std/assert";
import { servedRunId } from "../../../../src/core/mcp/serve/_served_run_id.ts";
import { ProtocolError } from "../../../../src/core/mcp/mcp_sdk.ts";

Deno.test("a served call's run is the one the client names, else its session, else its user", () => {
  assertEquals(servedRunId({ "toolroute/runId": "r1" }, "s1"), "client:r1");
  assertEquals(servedRunId({ progressToken: 3 }, "s1"), "session:s1");
  assertEquals(servedRunId(undefined, undefined), "served");
  // A client cannot name its run so that it meets a session's.
  assertEquals(servedRunId({ "toolroute/runId": "session:s1" }, "s2"), "client:session:s1");
});

Deno.test("a run id that is not a string of 1 to 256 characters is refused as invalid params", () => {
  for (const runId of [7, "", "x".repeat(257), null, { id: "r" }]) {
    assertThrows(() => servedRunId({ "toolroute/runId": runId }, "s1"), ProtocolError, "runId");
  }
});
