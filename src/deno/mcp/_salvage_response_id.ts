const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
const ID_AT_START = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`,
);

/**
 * Finds the id of a JSON-RPC response that cannot be parsed (too large, or malformed), from the
 * start and end of its text, so that its request can fail at once instead of at its deadline.
 *
 * Returns `undefined` unless the text looks like a response (a `result` or `error` member and no
 * `method`): an error for a server's own request id would be taken for an answer to the client.
 *
 * @returns The id (a number or string), or `undefined`.
 */
export function salvageResponseId(head: string, tail: string): number | string | undefined {
  if (/"method"\s*:/.test(head) || !/"(result|error)"\s*:/.test(head)) return undefined;
  const found = ID_AT_END.exec(tail)?.[1] ?? ID_AT_START.exec(head)?.[1];
  if (found === undefined) return undefined;
  try {
    return JSON.parse(found);
  } catch {
    return undefined;
  }
}
