import { isStdioConfig, type McpServerConfig } from "../../mcp_server_config.ts";

/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * A variable name that reads as a secret: one of its `_`/`-`/`.` separated words is or ends in
 * one of these (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `APIKEY`, `DB_PASSWORD`, `CLIENT_SECRET`,
 * `AZURE_DEVOPS_PAT`).
 */
const SECRET_NAME =
  /(?:^|[_.-])[A-Z0-9]*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|AUTH|PAT|COOKIE)(?:$|[_.-])/i;

/** A URL with a password in it (`postgres://me:pw@db/app`): a secret whatever its name. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

/**
 * The secrets of one connection's config, as a server may echo them: every header value, each
 * word of it (a bearer's token) and a `Basic` one's user and password decoded; of a stdio
 * server, the environment values that are secrets (listed in `secretEnv`, named like one, or a
 * URL with a password; not plain configuration such as `NODE_ENV=production`, which redacting
 * would garble every result with) the same way, and the arguments listed in `secretArgs`, whole,
 * by word and after their `=`. Each also JSON-escaped and percent-encoded; each at least 8
 * characters; longest first (a bearer before its token).
 */
export function configSecrets(config: McpServerConfig): readonly string[] {
  const words = (value: string) => [value, ...value.split(/\s+/), ...basicCredentials(value)];
  if (!isStdioConfig(config)) return expanded(Object.values(config.headers ?? {}).flatMap(words));
  const listed = config.secretEnv ?? [];
  return expanded([
    ...Object.entries(config.env ?? {})
      .filter(([name, value]) =>
        listed.includes(name) || SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value)
      )
      .flatMap(([, value]) => words(value)),
    ...(config.secretArgs ?? []).map((index) => config.args?.[index] ?? "")
      .flatMap((arg) => [arg, ...arg.split(/\s+/), arg.slice(arg.indexOf("=") + 1)]),
  ]);
}

/**
 * Secrets that change (OAuth tokens) added to those of {@linkcode configSecrets}, expanded the
 * same way; longest first.
 *
 * @param secrets What `configSecrets` gave.
 * @param more The changing secrets.
 * @returns All of them.
 */
export function withSecrets(
  secrets: readonly string[],
  more: readonly string[],
): readonly string[] {
  return [...new Set([...expanded(more), ...secrets])].sort((a, b) => b.length - a.length);
}

/**
 * What a `Basic` authorization header carries, decoded: `user:password` and the password alone,
 * which a server that checks them may echo as it read them.
 */
function basicCredentials(value: string): string[] {
  const encoded = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(value.trim())?.[1];
  if (encoded === undefined) return [];
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true })
      .decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));
  } catch {
    return [];
  }
  const colon = decoded.indexOf(":");
  return colon < 0 ? [decoded] : [decoded, decoded.slice(colon + 1)];
}

/**
 * The values long enough to be secrets, once each, longest first, each also as a server that
 * echoes it inside JSON text or a URL writes it: JSON-escaped (a password with a quote or a
 * backslash; `/` also as `\/`; non-ASCII as `\u00e9`, as Python's `json.dumps` writes it; `<`,
 * `>`, `&` as `\u003c`, as Go's `encoding/json` does), percent-encoded and form-encoded (a space
 * as `+`, `!'()~` escaped: Python's `urlencode`, `URLSearchParams`).
 */
function expanded(values: readonly string[]): readonly string[] {
  const secrets = new Set<string>();
  for (const value of values) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    const escaped = JSON.stringify(value).slice(1, -1);
    secrets.add(value).add(escaped).add(escaped.replaceAll("/", "\\/"));
    secrets.add(escaped.replace(/[\u007f-\uffff]/g, unicodeEscape));
    secrets.add(escaped.replace(/[<>&\u2028\u2029]/g, unicodeEscape));
    secrets.add(encodeURIComponent(value));
    secrets.add(new URLSearchParams([["", value]]).toString().slice(1));
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** A UTF-16 code unit as a JSON `\uXXXX` escape (lower-case hex, as Python and Go write it). */
function unicodeEscape(char: string): string {
  return "\\u" + char.charCodeAt(0).toString(16).padStart(4, "0");
}
