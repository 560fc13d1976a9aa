/** The pattern every exposed tool name matches. */
export const API_FUNCTION_NAME_PATTERN: RegExp = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * Turns a service name and a tool name into one name every model provider accepts.
 *
 * The result matches `^[A-Za-z][A-Za-z0-9_-]{0,63}$`. The parts are joined with `_`; every
 * character outside `[A-Za-z0-9_-]` becomes `_`; runs of `_` collapse; leading and trailing `_`
 * are stripped; a name that does not start with a letter gets the prefix `tool_`. When anything
 * is lost (non-ASCII characters, or truncation past 64 characters) a short hash of the input is
 * appended, so distinct inputs keep distinct names.
 *
 * @example Join a service and a tool
 * ```ts
 * import { toApiFunctionName } from "@toolroute/toolroute/formats";
 * import { assertEquals, assertNotEquals } from "@std/assert";
 *
 * assertEquals(toApiFunctionName("weather-service", "query_weather"), "weather-service_query_weather");
 * assertEquals(toApiFunctionName("my.svc", "get data"), "my_svc_get_data");
 * assertEquals(toApiFunctionName("9lives", "x"), "tool_9lives_x");
 * assertNotEquals(toApiFunctionName("天气", "查询"), toApiFunctionName("天气", "搜索"));
 * ```
 *
 * @param service The service (or server) name.
 * @param tool The tool name within the service.
 * @returns A valid, deterministic API function name.
 */
export function toApiFunctionName(service: string, tool: string): string {
  const joined = `${service}_${tool}`;
  let lossy = false;
  let out = "";
  for (const char of joined) {
    if (/^[A-Za-z0-9_-]$/.test(char)) out += char;
    else {
      if (char.codePointAt(0)! > 0x7f) lossy = true;
      out += "_";
    }
  }
  out = out.replace(/_+/g, "_").replace(/^_+|_+$/g, "");
  if (!/^[A-Za-z]/.test(out)) out = out === "" ? "tool" : `tool_${out}`;
  if (!lossy && out.length <= MAX_LENGTH) return out;
  const hash = hashText(`${service}\u0000${tool}`);
  const head = out.slice(0, MAX_LENGTH - HASH_LENGTH - 1).replace(/_+$/, "");
  return `${head}_${hash}`;
}

/** A 53-bit string hash (cyrb53), in base 36, padded to {@linkcode HASH_LENGTH} characters. */
function hashText(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(36).padStart(HASH_LENGTH, "0").slice(-HASH_LENGTH);
}
