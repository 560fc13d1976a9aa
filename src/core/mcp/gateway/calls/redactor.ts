import { isToolError, ToolError } from "../../../tool_error.ts";
import { isStdioConfig, type McpServerConfig } from "../../mcp_server_config.ts";

/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes one connection's configured header values and environment values (tokens, keys) from
 * error texts, so a server that echoes a request's headers cannot put them in front of a model.
 */
export class Redactor {
  #secrets: string[];
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
      ? Object.values(config.env ?? {})
      : Object.values(config.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/)]);
    this.#secrets = [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))]
      .sort((a, b) => b.length - a.length);
  }

  /**
   * Returns the text with every secret replaced by `[redacted]`.
   *
   * @param text The text.
   * @returns The redacted text.
   */
  text(text: string): string {
    let out = text;
    const more = this.#more?.().filter((value) => value.length >= MIN_SECRET_LENGTH) ?? [];
    for (const secret of [...more, ...this.#secrets]) {
      if (out.includes(secret)) out = out.split(secret).join("[redacted]");
    }
    return out;
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
    return message === error.message
      ? error
      : new ToolError(error.code, message, { cause: error.cause });
  }
}
