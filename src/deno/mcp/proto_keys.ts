import { jsonPath } from "./mcp_config_schema.ts";

/**
 * Each `"__proto__"` key of a parsed config, as an issue line (`mcpServers.__proto__: …`).
 *
 * JSON keeps `"__proto__"` as a plain key, but zod's records skip it without a word, so a server,
 * user or header under that name would vanish from the config. It is refused instead, by name.
 *
 * @param value The parsed JSON.
 * @returns One line per such key, in the form of the schema's issues.
 */
export function protoKeyIssues(value: unknown): string[] {
  const issues: string[] = [];
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    for (const [key, child] of Object.entries(node)) {
      const at = [...path, Array.isArray(node) ? Number(key) : key];
      if (key === "__proto__") {
        issues.push(`${jsonPath(at)}: "__proto__" cannot name an entry here; rename it`);
      } else stack.push([child, at]);
    }
  }
  return issues.sort();
}
