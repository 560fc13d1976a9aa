/**
 * One contract, run against every source kind: exposure, a call, error mapping, timeout and
 * abort. A source test builds a fixture whose tools come from `contractTools()` and calls
 * `runSourceContract`.
 */
import { z } from "zod";
import { assert, assertEquals, assertMatch } from "@std/assert";
import type { SourceKind, ToolSet } from "../../mod.ts";

/** The contract's three tools, as zod input plus handler, for any source to wrap. */
export interface ContractTools {
  echo: { description: string; input: z.ZodObject; run: (args: { text: string }) => string };
  fail: { description: string; input: z.ZodObject; run: (args: { message: string }) => never };
  wait: {
    description: string;
    input: z.ZodObject;
    run: (args: Record<string, never>, context: { signal: AbortSignal }) => Promise<string>;
  };
  /** Resolves once the `wait` tool has seen its signal abort. */
  sawAbort: () => Promise<void>;
}

/** Builds a fresh set of contract tools. */
export function contractTools(): ContractTools {
  let aborted!: () => void;
  let sawAbort = new Promise<void>((resolve) => aborted = resolve);
  return {
    echo: {
      description: "Echoes the text",
      input: z.object({ text: z.string() }),
      run: ({ text }) => `echo: ${text}`,
    },
    fail: {
      description: "Always fails",
      input: z.object({ message: z.string() }),
      run: ({ message }) => {
        throw new Error(message);
      },
    },
    wait: {
      description: "Waits until aborted",
      input: z.object({}),
      run: (_args, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            aborted();
            sawAbort = Promise.resolve();
            reject(signal.reason);
          }, { once: true });
        }),
    },
    sawAbort: () => sawAbort,
  };
}

/** What a source test hands the contract. */
export interface ContractFixture {
  /** A tool set exposing exactly the three contract tools. */
  toolSet: ToolSet;
  /** The exposed names of the three tools. */
  names: { echo: string; fail: string; wait: string };
  /** The source the tools must report. */
  source: SourceKind;
  /** The tools behind the fixture, to see the abort. */
  tools: ContractTools;
  /** Frees what the fixture holds. */
  close(): Promise<void>;
  /** The calls made, for sources whose tools are fixed (the built-ins); default: the contract tools'. */
  calls?: ContractCalls;
}

/** The arguments of the contract's calls and what they must give. */
export interface ContractCalls {
  /** Arguments of the `echo` call, and its exact result text. */
  echo: { args: string; text: string };
  /** Arguments of `echo` that break its schema, and what the message must name. */
  badArgs: { args: string; mentions: RegExp };
  /** Arguments of the `fail` call, and what its message must say. */
  fail: { args: Record<string, unknown>; message: RegExp };
  /** Arguments of the `wait` call (it must run until its deadline or abort). */
  wait: { args: string };
}

const DEFAULT_CALLS: ContractCalls = {
  echo: { args: '{"text":"hi"}', text: "echo: hi" },
  badArgs: { args: '{"text": 5}', mentions: /text/ },
  fail: { args: { message: "disk on fire" }, message: /disk on fire/ },
  wait: { args: "{}" },
};

/** Runs the contract's steps against one fixture. */
export async function runSourceContract(
  t: Deno.TestContext,
  fixture: ContractFixture,
): Promise<void> {
  const { toolSet, names, source } = fixture;
  const calls = fixture.calls ?? DEFAULT_CALLS;
  try {
    await t.step("exposes exactly the selected tools, in the OpenAI format", () => {
      assertEquals([...toolSet.names].sort(), [names.echo, names.fail, names.wait].sort());
      for (const tool of toolSet.tools) {
        assertEquals(tool.type, "function");
        assertEquals(tool.function.parameters.type, "object");
      }
    });
    await t.step("calls a tool and reports its source", async () => {
      const result = await toolSet.call(names.echo, calls.echo.args);
      assertEquals(result, {
        text: calls.echo.text,
        isError: false,
        source,
        tool: names.echo,
        content: [{ type: "text", text: calls.echo.text }],
      });
    });
    await t.step("maps bad arguments to invalid_arguments", async () => {
      const result = await toolSet.call(names.echo, calls.badArgs.args);
      assertEquals([result.isError, result.code], [true, "invalid_arguments"]);
      assertMatch(result.text, calls.badArgs.mentions);
    });
    await t.step("maps a failing tool to tool_error with its message", async () => {
      const result = await toolSet.call(names.fail, calls.fail.args);
      assertEquals([result.isError, result.code, result.source], [true, "tool_error", source]);
      assertMatch(result.text, calls.fail.message);
    });
    await t.step("refuses a name that is not exposed", async () => {
      const result = await toolSet.call("not_exposed", "{}");
      assertEquals([result.isError, result.code], [true, "unknown_tool"]);
    });
    await t.step("ends a hanging call at its deadline and aborts the tool's signal", async () => {
      const result = await toolSet.call(names.wait, calls.wait.args, { timeoutMs: 50 });
      assertEquals([result.isError, result.code], [true, "timeout"]);
      await fixture.tools.sawAbort();
    });
    await t.step("ends a call when the caller aborts", async () => {
      const controller = new AbortController();
      const pending = toolSet.call(names.wait, calls.wait.args, { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      const result = await pending;
      assertEquals([result.isError, result.code], [true, "aborted"]);
      assert(result.text.length > 0);
    });
  } finally {
    await fixture.close();
  }
}
