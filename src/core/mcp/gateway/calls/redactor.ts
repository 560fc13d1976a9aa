import { isToolError, ToolError } from "../../../tool_error.ts";
import { isStdioConfig, type McpServerConfig } from "../../mcp_server_config.ts";
import { redactResult, redactText, type ResultParts } from "./result_redaction.ts";

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
 * Whether a stdio server's variable holds a secret: listed in `secretEnv` (the loader lists those
 * that came from a `${VAR}`), named like one, or a URL with a password. Plain configuration (`NODE_ENV=production`, a
 * path) is not: redacting it would garble every result that mentions it.
 */
function isSecretEnv(name: string, value: string, listed: readonly string[]): boolean {
  return listed.includes(name) || SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value);
}

/**
 * Removes one connection's secrets from error messages and tool results: every header value (and
 * each word of it, such as a bearer's token), OAuth tokens, and the environment values of a
 * stdio server that are secrets (see `McpStdioServerConfig.secretEnv`), so a server that echoes a request's headers cannot put them in
 * front of a model.
 */
export class Redactor {
  #secrets: readonly string[];
  #more?: () => readonly string[];

  /**
   * Collects the secrets of a config.
   *
   * @param config The server's config.
   * @param more Secrets that change (OAuth tokens), read on each use.
   */
  constructor(config: McpServerConfig, more?: () => readonly string[]) {
    this.#more = more;
    const values = isStdioConfig(config)
      ? Object.entries(config.env ?? {})
        .filter(([name, value]) => isSecretEnv(name, value, config.secretEnv ?? []))
        // Each word too, as for headers: the token of "Bearer ${TOKEN}" when echoed alone.
        .flatMap(([, value]) => [value, ...value.split(/\s+/)])
      : Object.values(config.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/)]);
    this.#secrets = longestFirst(values);
  }

  /**
   * The secrets now, longest first: the configured ones and the changing ones (read anew). The
   * same empty list, without allocating, for a connection that has none (the common case).
   *
   * @returns The secrets, each at least 8 characters.
   */
  secrets(): readonly string[] {
    const more = this.#more?.();
    if (more === undefined || more.length === 0) return this.#secrets;
    return longestFirst([...more, ...this.#secrets]);
  }

  /**
   * Returns the text with every secret replaced by `[redacted]`.
   *
   * @param text The text.
   * @returns The redacted text.
   */
  text(text: string): string {
    return redactText(text, this.secrets());
  }

  /**
   * Returns a tool result with every secret replaced in every string a model can see (see
   * `redactResult`): the same object when none is there.
   *
   * @param result The result's content blocks and structured content.
   * @returns The same result, or a redacted copy.
   */
  result<T extends ResultParts>(result: T): T {
    const secrets = this.secrets();
    return secrets.length === 0 ? result : redactResult(result, secrets);
  }

  /**
   * Returns the error as a `ToolError` whose message holds no secret.
   *
   * @param error A thrown value (usually a `ToolError`).
   * @returns The same error, or a copy with a redacted message.
   */
  toolError(error: unknown): unknown {
    if (!isToolError(error)) return error;
    const message = this.text(error.message);
    return message === error.message ? error : new ToolError(error.code, message, {
      cause: error.cause,
      retryAfterMs: error.retryAfterMs,
    });
  }
}

/** The values long enough to be secrets, once each, longest first (a bearer before its token). */
function longestFirst(values: readonly string[]): readonly string[] {
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))]
    .sort((a, b) => b.length - a.length);
}
