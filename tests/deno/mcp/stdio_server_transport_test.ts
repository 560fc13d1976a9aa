import { assertEquals, assertMatch } from "@std/assert";
import { DenoStdioServerTransport } from "../../../src/deno/mcp/stdio_server_transport.ts";

function pipes() {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  return { input, output, writer: input.writable.getWriter(), reader: output.readable.getReader() };
}

Deno.test("DenoStdioServerTransport reads one message per line and writes lines", async () => {
  const { input, output, writer, reader } = pipes();
  const transport = new DenoStdioServerTransport(input.readable, output.writable);
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closed = 0;
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => closed++;
  await transport.start();
  const encoder = new TextEncoder();
  await writer.write(
    encoder.encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"jsonrpc":"2.0",'),
  );
  // (An array is a batch, answered apart: see the batch test below.)
  await writer.write(encoder.encode('"method":"x"}\nnot json\n42\n\n'));
  const read = reader.read();
  await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  const { value } = await read;
  assertEquals(new TextDecoder().decode(value), '{"jsonrpc":"2.0","id":1,"result":{}}\n');
  await writer.close();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(messages, [{ jsonrpc: "2.0", id: 1, method: "ping" }, {
    jsonrpc: "2.0",
    method: "x",
  }]);
  assertEquals(errors.length, 2);
  assertMatch(errors[0], /not JSON/);
  assertEquals(closed, 1);
  await transport.close();
  assertEquals(closed, 1);
  reader.releaseLock();
  await output.readable.cancel();
});

Deno.test("DenoStdioServerTransport splits on bytes: a character cut between chunks arrives whole", async () => {
  const { input, output, writer } = pipes();
  const transport = new DenoStdioServerTransport(input.readable, output.writable);
  const messages: unknown[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  const bytes = new TextEncoder().encode('{"jsonrpc":"2.0","method":"é€😀"}\n');
  const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of "€"
  await writer.write(bytes.subarray(0, cut));
  await writer.write(bytes.subarray(cut));
  await writer.close();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(messages, [{ jsonrpc: "2.0", method: "é€😀" }]);
  await transport.close();
});

Deno.test("DenoStdioServerTransport answers a JSON-RPC batch with one error and passes none of it on", async () => {
  const { input, output, writer, reader } = pipes();
  const transport = new DenoStdioServerTransport(input.readable, output.writable);
  const messages: unknown[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  const read = reader.read();
  await writer.write(
    new TextEncoder().encode(
      '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash"}}]\n',
    ),
  );
  const reply = JSON.parse(new TextDecoder().decode((await read).value));
  assertEquals(reply.id, null);
  assertEquals(reply.error.code, -32600);
  assertMatch(reply.error.message, /batches are not supported/);
  assertEquals(messages, [], "nothing of the batch reached the server");
  await writer.close();
  await transport.close();
  reader.releaseLock();
});

Deno.test("DenoStdioServerTransport reads a file such as stdin directly, reusing its buffer safely", async () => {
  const encoder = new TextEncoder();
  // The first chunk ends inside a message: the line reader must keep a copy, not the buffer.
  const chunks = ['{"jsonrpc":"2.0","id":1,"met', 'hod":"ping"}\n{"jsonrpc":"2.0","method":"x"}\n'];
  const file = {
    read(buffer: Uint8Array): Promise<number | null> {
      const next = chunks.shift();
      if (next === undefined) return Promise.resolve(null);
      const bytes = encoder.encode(next);
      buffer.fill(0x7a); // what is left of the last read is overwritten
      buffer.set(bytes);
      return Promise.resolve(bytes.length);
    },
  };
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const transport = new DenoStdioServerTransport(file, output.writable);
  const messages: unknown[] = [];
  const ended = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  await ended;
  assertEquals(messages, [{ jsonrpc: "2.0", id: 1, method: "ping" }, {
    jsonrpc: "2.0",
    method: "x",
  }]);
  await output.readable.cancel();
});

Deno.test("DenoStdioServerTransport closes a file source on close, ending the read that waits", async () => {
  let closed = 0;
  let interrupt: (error: Error) => void = () => {};
  const file = {
    read: () => new Promise<number | null>((_, reject) => interrupt = reject),
    close() {
      closed++;
      interrupt(new Deno.errors.Interrupted("closed"));
    },
  };
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const transport = new DenoStdioServerTransport(file, output.writable);
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  await transport.start();
  await transport.close();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals([closed, errors], [1, []]);
  await output.readable.cancel();
});

Deno.test("DenoStdioServerTransport starts the next read only after a message ran to its first wait", async () => {
  const encoder = new TextEncoder();
  const chunks = ['{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n'];
  const events: string[] = [];
  const file = {
    read(buffer: Uint8Array): Promise<number | null> {
      events.push("read");
      const next = chunks.shift();
      if (next === undefined) return Promise.resolve(null);
      const bytes = encoder.encode(next);
      buffer.set(bytes);
      return Promise.resolve(bytes.length);
    },
  };
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const transport = new DenoStdioServerTransport(file, output.writable);
  const ended = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = () => {
    // A handler as the SDK runs it: a chain of promise steps before its first I/O.
    void (async () => {
      for (let step = 0; step < 50; step++) await Promise.resolve();
      events.push("handler ran");
    })();
  };
  await transport.start();
  await ended;
  assertEquals(events, ["read", "handler ran", "read"]);
  await output.readable.cancel();
});
