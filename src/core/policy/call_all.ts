import type { CallOptions, ToolCallResult } from "../tool_call_types.ts";
import { pooledMap } from "@std/async";
import { checkPositive } from "../check_positive.ts";

/** One call of a batch, as a model's reply lists them. */
export interface BatchCall {
  /** The tool name. */
  name: string;
  /** The arguments: JSON text or an object. */
  arguments: unknown;
  /** The model's id of this call, copied to its result. */
  id?: string;
}

/** Options of `ToolSet#callAll`. */
export interface CallAllOptions extends CallOptions {
  /** Most read-only calls that run at once. Default: 8. */
  concurrency?: number;
}

/**
 * Runs a batch of calls, results in the calls' order. Consecutive read-only calls run
 * together (at most `concurrency` at once); any other call waits for everything before it and
 * runs alone, so a read after a write sees the write.
 *
 * Throws a `TypeError` when `calls` is not an array of `{ name, arguments }`, and a
 * `RangeError` for a bad `concurrency`.
 *
 * @param run Whether a name is safe to run alongside others, and how to run one call.
 * @param options Options for every call, and the concurrency.
 * @returns One result per call, in order.
 */
export async function callAll(
  calls: readonly BatchCall[],
  run: { readOnly: (name: string) => boolean; call: (call: BatchCall) => Promise<ToolCallResult> },
  options: CallAllOptions = {},
): Promise<ToolCallResult[]> {
  checkCalls(calls);
  checkPositive(options.concurrency, "concurrency", { where: "Cannot call tools", min: 1 });
  const limit = options.concurrency ?? 8;
  const results: ToolCallResult[] = new Array(calls.length);
  const one = async (index: number) => {
    const result = await run.call(calls[index]);
    results[index] = calls[index].id === undefined ? result : { ...result, id: calls[index].id };
  };
  let index = 0;
  while (index < calls.length) {
    if (!run.readOnly(calls[index].name)) {
      await one(index++);
      continue;
    }
    const together: number[] = [];
    while (index < calls.length && run.readOnly(calls[index].name)) together.push(index++);
    await Array.fromAsync(pooledMap(limit, together, one));
  }
  return results;
}

function checkCalls(calls: readonly BatchCall[]): void {
  if (!Array.isArray(calls)) {
    throw new TypeError(
      'Cannot call tools: pass an array of calls such as [{ name: "read_file", arguments: {} }]',
    );
  }
  calls.forEach((call, i) => {
    if (call === null || typeof call !== "object" || typeof call.name !== "string") {
      throw new TypeError(
        `Cannot call tools: call ${i} must be an object with a string "name", received ${
          JSON.stringify(call)
        }`,
      );
    }
    if (call.id !== undefined && typeof call.id !== "string") {
      throw new TypeError(`Cannot call tools: the "id" of call ${i} must be a string`);
    }
  });
}
