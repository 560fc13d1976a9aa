import { assertEquals, assertMatch } from "@std/assert";
import type { Client } from "../../../src/core/mcp/mcp_sdk.ts";
import { connectAs } from "../../_helpers/serve_http_in_process.ts";
import { makeFixture, startExactServe } from "./_serve_process.ts";

/** What each call answered: "ran" when the tool really read the file, else its error text. */
async function calls(client: Client, count: number, runId?: string): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < count; i++) {
    const result = await client.callTool({
      name: "read_file",
      arguments: { path: "hello.txt" },
      ...(runId === undefined ? {} : { _meta: { "toolroute/runId": runId } }),
    }) as { isError?: boolean; content: { text: string }[] };
    const text = result.content[0].text;
    if (result.isError !== true && text.includes("hello from the workspace")) answers.push("ran");
    else {
      assertMatch(text, /limit|retry/i, text);
      answers.push("rate_limited");
    }
  }
  return answers;
}

const RAN_3_THEN_LIMITED = ["ran", "ran", "ran", "rate_limited"];

Deno.test("serve counts a per-run budget per run the client names, per user", async () => {
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    policy: { limits: [{ match: "read_file", max: 3 }] },
    users: { TOKEN_ALICE: { id: "alice" }, TOKEN_BOB: { id: "bob" } },
    sharedWorkspace: true,
  });
  await using serve = await startExactServe(fixture.config, {
    TOKEN_ALICE: "alice-token",
    TOKEN_BOB: "bob-token",
  });
  const alice = await connectAs(serve.url, "alice-token");
  const bob = await connectAs(serve.url, "bob-token");
  try {
    // A runaway loop in one run: the fourth call runs nothing.
    assertEquals(await calls(alice, 4, "run-1"), RAN_3_THEN_LIMITED);
    // A new run of the same client gets three more; the old run stays spent.
    assertEquals(await calls(alice, 4, "run-2"), RAN_3_THEN_LIMITED);
    assertEquals(await calls(alice, 1, "run-1"), ["rate_limited"]);
    // Another user's run of the same name is counted apart.
    assertEquals(await calls(bob, 4, "run-1"), RAN_3_THEN_LIMITED);
  } finally {
    await alice.close();
    await bob.close();
  }
  assertEquals(await serve.stop(), 0);
  assertEquals(serve.stderr().match(/call read_file builtin user=alice .* ok/g)?.length, 6);
  assertEquals(serve.stderr().match(/user=alice .* error rate_limited/g)?.length, 3);
});

Deno.test("serve counts a per-run budget per MCP session when the client names no run", async () => {
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    policy: { limits: [{ match: "read_file", max: 3 }] },
  });
  await using serve = await startExactServe(fixture.config);
  const first = await connectAs(serve.url, serve.token);
  const second = await connectAs(serve.url, serve.token);
  try {
    assertEquals(await calls(first, 4), RAN_3_THEN_LIMITED);
    assertEquals(await calls(second, 4), RAN_3_THEN_LIMITED);
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("serve refuses a run id that is not a short string", async () => {
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    policy: { limits: [{ match: "read_file", max: 3 }] },
  });
  await using serve = await startExactServe(fixture.config);
  const client = await connectAs(serve.url, serve.token);
  try {
    for (const runId of [42, "", "r".repeat(257)]) {
      const error = await client.callTool({
        name: "read_file",
        arguments: { path: "hello.txt" },
        _meta: { "toolroute/runId": runId },
      }).then(() => undefined, (error: Error) => error);
      assertMatch(String(error?.message), /toolroute\/runId/);
    }
  } finally {
    await client.close();
  }
});
