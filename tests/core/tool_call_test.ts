import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { z } from "zod";
import { defineTool, type ToolCallEvent, ToolRouter } from "../../mod.ts";

function routerWith(
  run: (args: { text?: string }, ctx: { signal: AbortSignal }) => unknown,
  onEvent?: (e: ToolCallEvent) => void,
) {
  let calls = 0;
  const tool = defineTool({
    name: "t",
    description: "A test tool",
    input: z.object({ text: z.string().optional() }),
    run: (args, ctx) => {
      calls++;
      return run(args, ctx);
    },
  });
  const router = new ToolRouter({ functions: [tool], onEvent });
  return { router, calls: () => calls };
}

Deno.test("call() returns strings as they are, other values as compact JSON, undefined as empty", async () => {
  for (
    const [value, text] of [["plain", "plain"], [{ a: [1, 2] }, '{"a":[1,2]}'], [undefined, ""], [
      7,
      "7",
    ], [null, "null"]] as const
  ) {
    const { router } = routerWith(() => value);
    const tools = await router.expose({ functions: ["t"] });
    assertEquals(await tools.call("t", "{}"), {
      text,
      isError: false,
      source: "function",
      tool: "t",
      content: [{ type: "text", text }],
    });
  }
});

Deno.test("call() turns bad arguments into invalid_arguments without running the handler", async () => {
  const { router, calls } = routerWith(() => "ran");
  const tools = await router.expose({ functions: ["t"] });
  const inputs = [
    "{oops",
    "[]",
    "null",
    null,
    `"${"x".repeat(10 * 1024 * 1024)}"`,
    `{"text":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"text":1e309}',
    '{"text":5}',
    '{"text":"a","extra":1}',
  ];
  for (const input of inputs) {
    const result = await tools.call("t", input);
    assertEquals(
      [result.isError, result.code],
      [true, "invalid_arguments"],
      String(input).slice(0, 40),
    );
    assert(result.text.length < 500, "the message stays short");
    assert(!result.text.includes("[object Object]"));
    assert(!/\n\s+at /.test(result.text), "no stack trace");
  }
  assertEquals(calls(), 0);
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
  assertEquals(await tools.invoke("t", '{"text":"still healthy"}'), "ran");
});

Deno.test("call() names the missing field and the expected parameters", async () => {
  const tool = defineTool({
    name: "weather",
    description: "Weather",
    input: z.object({ city: z.string(), days: z.number().int() }),
    run: () => "ok",
  });
  const tools = await new ToolRouter({ functions: [tool] }).expose({ functions: ["weather"] });
  const result = await tools.call("weather", '{"days":2}');
  assertMatch(result.text, /"city"/);
  assertMatch(
    result.text,
    /Expected parameters: city \(string, required\), days \(integer, required\)/,
  );
});

Deno.test("call() turns anything a handler throws into tool_error with its message", async () => {
  const throws: [() => unknown, RegExp][] = [
    [() => {
      throw new Error("boom");
    }, /boom/],
    [() => {
      throw "a string";
    }, /a string/],
    [() => {
      throw { reason: "an object" };
    }, /an object/],
    [() => Promise.reject(new TypeError("rejected")), /rejected/],
    [() => {
      throw undefined;
    }, /without a message/],
  ];
  for (const [run, pattern] of throws) {
    const { router } = routerWith(run);
    const result = await (await router.expose({ functions: ["t"] })).call("t", "{}");
    assertEquals([result.isError, result.code], [true, "tool_error"]);
    assertMatch(result.text, pattern);
    assert(!result.text.includes("[object Object]"));
  }
});

Deno.test("call() reports a result that cannot be encoded as tool_error", async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const { router } = routerWith(() => cyclic);
  const result = await (await router.expose({ functions: ["t"] })).call("t", "{}");
  assertEquals(result.code, "tool_error");
  assertMatch(result.text, /cannot be encoded as JSON/);
});

Deno.test("call() ends a handler that never resolves at timeoutMs and aborts its signal", async () => {
  let seen: AbortSignal | undefined;
  const { router } = routerWith((_args, { signal }) => {
    seen = signal;
    return new Promise(() => {});
  });
  const tools = await router.expose({ functions: ["t"] });
  const result = await tools.call("t", "{}", { timeoutMs: 30 });
  assertEquals([result.isError, result.code], [true, "timeout"]);
  assertMatch(result.text, /did not finish within 30 ms/);
  // The call's one timer aborted the tool's signal with the error the result reports.
  assertEquals(seen?.aborted, true);
  assertEquals([seen?.reason?.code, seen?.reason?.message], [result.code, result.text]);
});

Deno.test("call() gives every call its own signal, also without a deadline or a caller's signal", async () => {
  const seen: AbortSignal[] = [];
  const { router } = routerWith((_args, { signal }) => {
    seen.push(signal);
    return "ok";
  });
  const tools = await router.expose({ functions: ["t"] });
  const caller = new AbortController();
  await tools.call("t");
  await tools.call("t");
  await tools.call("t", "{}", { signal: caller.signal });
  assertEquals(seen.length, 3);
  assertEquals(new Set(seen).size, 3, "no signal is shared between calls");
  assert(!seen.includes(caller.signal), "the caller's signal is followed, not handed down");
  // Aborting one caller's signal after its call ended reaches no other call.
  caller.abort();
  assertEquals(seen.map((signal) => signal.aborted), [false, false, false]);
});

Deno.test("call() uses the router's default timeout", async () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    input: z.object({}),
    run: () => new Promise(() => {}),
  });
  const tools = await new ToolRouter({ functions: [tool], timeoutMs: 20 }).expose({
    functions: ["t"],
  });
  assertEquals((await tools.call("t")).code, "timeout");
});

Deno.test("call() ends at the caller's abort and aborts the handler's signal", async () => {
  let seen: AbortSignal | undefined;
  const { router } = routerWith((_args, { signal }) => {
    seen = signal;
    return new Promise(() => {});
  });
  const tools = await router.expose({ functions: ["t"] });
  const controller = new AbortController();
  const pending = tools.call("t", "{}", { signal: controller.signal });
  controller.abort();
  const result = await pending;
  assertEquals([result.isError, result.code], [true, "aborted"]);
  assertEquals(seen?.aborted, true);
});

Deno.test("call() does not run a handler when the signal is already aborted", async () => {
  const { router, calls } = routerWith(() => "ran");
  const tools = await router.expose({ functions: ["t"] });
  const result = await tools.call("t", "{}", { signal: AbortSignal.abort() });
  assertEquals(result.code, "aborted");
  assertEquals(calls(), 0);
});

Deno.test("call() rejects a timeoutMs that is not a positive number, as host misuse", async () => {
  const { router } = routerWith(() => "ran");
  const tools = await router.expose({ functions: ["t"] });
  await assertRejects(() => tools.call("t", "{}", { timeoutMs: -1 }), RangeError, "timeoutMs");
});

Deno.test("call() emits one event per call, and a throwing observer changes nothing", async () => {
  const events: ToolCallEvent[] = [];
  const { router } = routerWith(() => "ok", (event) => {
    events.push(event);
    throw new Error("observer failed");
  });
  const tools = await router.expose({ functions: ["t"], userId: "alice" });
  assertEquals(await tools.invoke("t", "{}"), "ok");
  assertEquals(await tools.invoke("nope", "{}"), 'Unknown tool "nope". Available tools: t');
  assertEquals(events.length, 2);
  assertEquals({ ...events[0], durationMs: 0 }, {
    type: "call",
    tool: "t",
    source: "function",
    userId: "alice",
    durationMs: 0,
    isError: false,
    code: undefined,
  });
  assertEquals([events[1].isError, events[1].code, events[1].source], [
    true,
    "unknown_tool",
    undefined,
  ]);
  assert(events[0].durationMs >= 0);
});

Deno.test("call() cuts results over the router's maxResultChars, keeping head, tail and a handle", async () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    input: z.object({}),
    run: () => "a".repeat(500) + "z".repeat(500),
  });
  const tools = await new ToolRouter({ functions: [tool], maxResultChars: 400 }).expose({
    functions: ["t"],
  });
  const text = await tools.invoke("t");
  assert(text.length <= 400, `${text.length} characters`);
  assert(text.startsWith("a".repeat(50)) && text.endsWith("z".repeat(50)));
  assertMatch(text, /\[\.\.\. \d+ characters cut\. .*read_result/);
});
