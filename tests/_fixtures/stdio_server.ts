/**
 * A stdio MCP server for tests: an SDK `McpServer` on a minimal Deno stdin/stdout transport
 * (newline-delimited JSON-RPC). Runs as a child process; needs no permission for its own work.
 *
 * Tools: `echo {text}`, `add {a,b}`, `sleep {ms}`, `crash` (exits the process mid-call), `pid`,
 * `read {path}` (reads a file, or reports why it cannot), `env {name}` (reads a variable), `argv`
 * (its own arguments),
 * `big {chars}` (a result of `chars` characters), `garbage` (writes a non-JSON line, then answers),
 * `malformed` (answers with a broken JSON line), `progress_burst {count}` (writes `count` progress
 * notifications and the answer in one write, as a fast server's output arrives in one chunk).
 *
 * Usage: `deno run --no-prompt tests/_fixtures/stdio_server.ts`
 *
 * @module
 */

import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Transport,
} from "../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const encoder = new TextEncoder();

/** Minimal server transport on Deno's stdin and stdout. */
class DenoStdioServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  start(): Promise<void> {
    this.#read();
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        if (line.trim() === "") continue;
        this.onmessage?.(parseJSONRPCMessage(JSON.parse(line)) as JSONRPCMessage);
      }
    }
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await writeAll(JSON.stringify(message) + "\n");
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

async function writeAll(text: string): Promise<void> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
}

const server = new McpServer({ name: "stdio-fixture", version: "1.0.0" });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

server.registerTool(
  "echo",
  { description: "Echoes text", inputSchema: z.object({ text: z.string() }) },
  ({ text: t }) => text(t),
);
server.registerTool(
  "add",
  { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
  ({ a, b }) => text(String(a + b)),
);
server.registerTool(
  "sleep",
  { description: "Answers after a delay", inputSchema: z.object({ ms: z.number() }) },
  ({ ms }) => new Promise((resolve) => setTimeout(() => resolve(text("slept")), ms)),
);
server.registerTool("crash", { description: "Exits mid-call", inputSchema: z.object({}) }, () => {
  setTimeout(() => Deno.exit(3), 20);
  return new Promise(() => {});
});
server.registerTool(
  "pid",
  { description: "The process id", inputSchema: z.object({}) },
  () => text(String(Deno.pid)),
);
server.registerTool(
  "read",
  { description: "Reads a file", inputSchema: z.object({ path: z.string() }) },
  ({ path }) => {
    try {
      return text(Deno.readTextFileSync(path));
    } catch (error) {
      return text(`cannot read: ${(error as Error).name}`);
    }
  },
);
server.registerTool(
  "env",
  { description: "Reads a variable", inputSchema: z.object({ name: z.string() }) },
  ({ name }) => {
    try {
      return text(Deno.env.get(name) ?? "(unset)");
    } catch (error) {
      return text(`cannot read: ${(error as Error).name}`);
    }
  },
);
server.registerTool(
  "argv",
  { description: "Its own arguments", inputSchema: z.object({}) },
  () => text(Deno.args.join(" ")),
);
server.registerTool(
  "big",
  { description: "A large result", inputSchema: z.object({ chars: z.number() }) },
  ({ chars }) => text("x".repeat(chars)),
);

server.registerTool("garbage", {
  description: "Writes a line that is not JSON-RPC, then answers",
  inputSchema: z.object({}),
}, async () => {
  await writeAll("this is not json\n");
  return text("answered after garbage");
});
server.registerTool("malformed", {
  description: "Answers with a cut-off JSON line",
  inputSchema: z.object({}),
}, async (_args, extra) => {
  await writeAll(
    `{"result":{"content":[{"type":"text","text":"cut` +
      `","jsonrpc":"2.0","id":${JSON.stringify(extra.mcpReq.id)}}\n`,
  );
  return new Promise(() => {});
});

server.registerTool("progress_burst", {
  description: "Writes its progress notifications and its answer in one write",
  inputSchema: z.object({ count: z.number() }),
}, async ({ count }, extra) => {
  const token = extra.mcpReq._meta?.progressToken;
  let out = "";
  for (let progress = 1; progress <= count; progress++) {
    const params = { progressToken: token, progress, total: count };
    out += JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params }) + "\n";
  }
  const result = text(`${count} reports`);
  out += JSON.stringify({ jsonrpc: "2.0", id: extra.mcpReq.id, result }) + "\n";
  await writeAll(out);
  return new Promise(() => {});
});

await server.connect(new DenoStdioServerTransport());
