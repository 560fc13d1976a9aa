import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import type { AuditRecord } from "../../../../src/core/stores.ts";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";
import { exists } from "../../../_helpers/exists.ts";

const PADDING = " ".repeat(400);
const ATTACK = `npm test${PADDING}; echo PAYLOAD > hidden.txt`;

/** `serve`'s HTTP handler on 127.0.0.1 with a `run` tool that really runs `sh -c` in `dir`. */
async function served(dir: string, records: AuditRecord[]) {
  const run = defineTool({
    name: "run",
    description: "Runs a shell command",
    input: z.object({ command: z.string() }),
    run: async ({ command }) => {
      const output = await new Deno.Command("sh", { args: ["-c", command], cwd: dir }).output();
      return `exit ${output.code}`;
    },
  });
  const router = new ToolRouter({
    functions: [run],
    policy: { ask: ["run"] },
    audit: { write: (record) => void records.push(record) },
  });
  const toolSet = await router.expose({ functions: ["run"] });
  const handler = mcpHttpHandler({ tools: () => toolSet });
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const url = new URL(`http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`);
  return {
    url,
    async [Symbol.asyncDispose]() {
      await handler.close();
      await http.shutdown();
    },
  };
}

/** A real MCP client that declares form elicitation and answers each question with `answer`. */
async function client(
  url: URL,
  answer: (params: Record<string, unknown>) => Record<string, unknown>,
) {
  const asked: Record<string, unknown>[] = [];
  const mcp = new Client(
    { name: "approver", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  mcp.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    // The answers are hand-built (some deliberately odd); the SDK validates them on the way.
    return answer(request.params) as { action: "accept" };
  });
  await mcp.connect(new StreamableHTTPClientTransport(url));
  return { mcp, asked };
}

function digestOf(params: Record<string, unknown>): string {
  const schema = params.requestedSchema as {
    properties: { shownDigest: { default: string } };
  };
  return schema.properties.shownDigest.default;
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("finding 10 through serve's elicitation: the approver sees the payload past 400 spaces, and an approval never fits changed arguments", async () => {
  const dir = await Deno.makeTempDir();
  const records: AuditRecord[] = [];
  try {
    await using server = await served(dir, records);
    let kept: string | undefined;
    const { mcp, asked } = await client(server.url, (params) => {
      // The approver keeps the digest of the first text it approved, and sends it back each time.
      kept ??= digestOf(params);
      return { action: "accept", content: { approve: true, shownDigest: kept } };
    });
    try {
      const first = await mcp.callTool({ name: "run", arguments: { command: ATTACK } });
      assertEquals(first.isError, undefined, text(first));
      // The attack ran: the call went through the elicitation and the payload executed ...
      assert(await exists(`${dir}/hidden.txt`), "the approved command ran");
      // ... but the person was shown it: the padding is marked with its count, the payload is there.
      const message = String(asked[0].message);
      assertStringIncludes(message, "command: npm test\\[400 × space]; echo PAYLOAD > hidden.txt");
      assert(!message.includes("    "), "no run of raw spaces hides anything");
      const description = (asked[0].requestedSchema as {
        properties: { approve: { description: string } };
      }).properties.approve.description;
      assertStringIncludes(description, "; echo PAYLOAD > hidden.txt");

      // A second call with other arguments: the approver answers with the digest it approved for
      // the first text. The approval does not fit these arguments, so nothing runs.
      const second = await mcp.callTool({
        name: "run",
        arguments: { command: "npm test; echo OTHER > other.txt" },
      });
      assertEquals(asked.length, 2, "the changed call was asked about");
      assertEquals(second.isError, true);
      assertStringIncludes(text(second), "approval names other arguments than the ones shown");
      assertEquals(await exists(`${dir}/other.txt`), false, "the changed call did not run");
      assert(digestOf(asked[1]) !== kept, "each text has its own digest");
    } finally {
      await mcp.close();
    }
    assertEquals(records.map((record) => record.decision), ["ask", "approve", "ask", "reject"]);
    assertEquals(records[3].approval, "invalid");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve's elicitation shows bidi and control characters as escapes, and newlines as marked breaks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using server = await served(dir, []);
    const { mcp, asked } = await client(server.url, () => ({ action: "decline" }));
    try {
      const command = "echo safe # \u202Etxt.exe\x1b[8m hidden\x1b[0m\nrm -rf ~\u200B";
      const result = await mcp.callTool({ name: "run", arguments: { command } });
      assertEquals(result.isError, true);
      const message = String(asked[0].message);
      for (const raw of ["\u202E", "\x1b", "\u200B"]) {
        assert(!message.includes(raw), `raw ${JSON.stringify(raw)} in the question`);
      }
      assertStringIncludes(
        message,
        "command: echo safe # \\u202Etxt.exe\\u001B[8m hidden\\u001B[0m\\n\nrm -rf ~\\u200B",
      );
    } finally {
      await mcp.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
