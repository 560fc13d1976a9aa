import { isToolError, ToolError } from "../../../tool_error.ts";
import type { ToolContent } from "../../../tool_output.ts";
import type { ToolLogEntry, ToolProgress } from "../../../tool_source.ts";
import type { McpServerConfig } from "../../mcp_server_config.ts";
import type { McpResultParts } from "../../mcp_call.ts";
import { configSecrets, withSecrets } from "./connection_secrets.ts";
import {
  bytesField,
  type JsonStringsOptions,
  mapBlockStrings,
  mapJsonStrings,
} from "../../../json_strings.ts";
import { MAX_REMOTE_DEPTH } from "../../remote_depth.ts";

/**
 * Removes one connection's secrets from error messages and tool results: those of its config
 * (`configSecrets`: header values, a stdio server's secret environment values and arguments) and
 * its OAuth tokens, so a server that echoes a request's headers or its argv cannot put them in
 * front of a model.
 */
export class Redactor {
  #secrets: readonly string[];
  #more?: () => readonly string[];
  #lastMore?: readonly string[];
  #lastSecrets: readonly string[] = [];

  /**
   * Collects the secrets of a config.
   *
   * @param more Secrets that change (OAuth tokens), read on each use.
   */
  constructor(config: McpServerConfig, more?: () => readonly string[]) {
    this.#more = more;
    this.#secrets = configSecrets(config);
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
    // Expanded once per set of tokens, not on every message: a token is as long as its
    // authorization server likes (up to its 1 MiB response), and a server may send thousands of
    // progress or log messages, each redacted on the one event loop every user shares.
    const last = this.#lastMore;
    if (last?.length === more.length && last.every((token, i) => token === more[i])) {
      return this.#lastSecrets;
    }
    this.#lastSecrets = withSecrets(this.#secrets, more);
    this.#lastMore = [...more];
    return this.#lastSecrets;
  }

  /**
   * Returns the text with every secret replaced by `[redacted]`.
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
  result<T extends McpResultParts>(result: T): T {
    const secrets = this.secrets();
    return secrets.length === 0 ? result : redactResult(result, secrets);
  }

  /**
   * A JSON value with the secrets of the moment replaced in every string and name, however deep
   * (a log message's data, an input request's schema): a copy where something was replaced, else
   * the value itself.
   *
   * @returns The value, redacted.
   * @throws ToolError when it is nested too deeply to be checked.
   */
  value<T>(value: T): T {
    if (typeof value === "string") return this.text(value) as T;
    const secrets = this.secrets();
    if (secrets.length === 0 || !isRecord(value) || !jsonMentions(value, secrets)) return value;
    return withheldTooDeep("message", () => redactValue(value, secrets) as T);
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

/**
 * A call's progress listener that gets each message without the connection's credentials
 * (`undefined` stays `undefined`: a call without a listener carries no progress token).
 *
 * @returns The listener to hand on.
 */
export function redactedProgress(
  redactor: Redactor,
  onProgress: ((progress: ToolProgress) => void) | undefined,
): ((progress: ToolProgress) => void) | undefined {
  if (onProgress === undefined) return undefined;
  return (progress) => {
    const message = progress.message;
    if (typeof message !== "string") return onProgress(progress);
    const redacted = redactor.text(message);
    onProgress(redacted === message ? progress : { ...progress, message: redacted });
  };
}

/**
 * A server's log message without the connection's credentials, in its logger's name and its
 * data; data nested too deeply to be checked is withheld.
 *
 * @returns The message to hand on (the same object when nothing was replaced).
 */
export function redactedEntry(redactor: Redactor, entry: ToolLogEntry): ToolLogEntry {
  let data: unknown;
  try {
    data = redactor.value(entry.data);
  } catch (error) {
    if (!isToolError(error)) throw error;
    data = error.message;
  }
  const logger = entry.logger === undefined ? undefined : redactor.text(entry.logger);
  if (data === entry.data && logger === entry.logger) return entry;
  return { ...entry, data, ...(logger === undefined ? {} : { logger }) };
}

const REDACTED = "[redacted]";

/**
 * Replaces secrets with `[redacted]` in every string of a tool result that is text: every field
 * of every content block, names included (a text block's `text`; an embedded resource's `uri`
 * and `text`; a resource link's `uri`, `name`, `title`, `description`; `annotations`, `_meta` and
 * any other field, however deep), and every string and name in `structuredContent`. Base64
 * payloads (an image's or audio's `data`, a resource's `blob`) are kept: they are bytes, which a
 * model is shown as a placeholder (`[image: image/png, 4 KB]`); the base64 of a token is not the
 * token, and a replacement inside it would only corrupt the media.
 *
 * One scan first (each string of a block; each nested object as one JSON text), then a copy of
 * only what holds a secret: a result without one is returned as it is, and so is each block,
 * object and list without one. A structure holding a secret too deep to be walked is
 * refused (`tool_error`) rather than passed on.
 *
 * @param result The result (its other fields are kept; a copy is a plain object).
 * @param secrets The secrets, longest first, each non-empty.
 * @returns The same result, or a copy with the secrets replaced.
 */
export function redactResult<T extends McpResultParts>(result: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return result;
  const { content, structuredContent } = result;
  return withheldTooDeep("result", () => {
    let blocks: ToolContent[] | undefined;
    for (let i = 0; i < content.length; i++) {
      const block = content[i];
      const redacted = blockMentions(block, secrets)
        ? mapBlockStrings(block, redacting(secrets)) as ToolContent
        : block;
      if (redacted === block) continue;
      blocks ??= [...content];
      blocks[i] = redacted;
    }
    const structured = structuredContent !== undefined && jsonMentions(structuredContent, secrets)
      ? redactValue(structuredContent, secrets) as Record<string, unknown>
      : structuredContent;
    if (blocks === undefined && structured === structuredContent) return result;
    const copy = { ...result, content: blocks ?? content };
    return structured === undefined ? copy : { ...copy, structuredContent: structured };
  });
}

/** Runs a redaction; a value nested too deeply for it (a `RangeError`) is withheld as a `ToolError`. */
function withheldTooDeep<T>(what: "message" | "result", redact: () => T): T {
  try {
    return redact();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ToolError(
      "tool_error",
      `The server's ${what} was withheld: it is nested too deeply to be checked for credentials`,
    );
  }
}

/**
 * Returns the text with every secret replaced by `[redacted]`.
 *
 * @param secrets The secrets, longest first (a bearer before its token).
 * @returns The same text, or the redacted one.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  }
  return out;
}

/** Whether a block holds a secret in a field that is text (not its base64 payload). */
function blockMentions(block: ToolContent, secrets: readonly string[]): boolean {
  switch (block.type) {
    case "image":
    case "audio":
      return fieldsMention(block, secrets, bytesField(block, "data"));
    case "resource":
      // A `resource` that is no object is text a server wrote where the schema wants one.
      return fieldsMention(block, secrets, "resource") ||
        (isRecord(block.resource)
          ? fieldsMention(block.resource, secrets, bytesField(block.resource, "blob"))
          : fieldsMention({ resource: block.resource }, secrets, undefined));
    default:
      return fieldsMention(block, secrets, undefined);
  }
}

/** Whether a name or a value of the record (other than `kept`'s) holds a secret. */
function fieldsMention(
  record: Record<string, unknown>,
  secrets: readonly string[],
  kept: string | undefined,
): boolean {
  for (const key in record) {
    if (key === kept) continue;
    if (textMentions(key, secrets)) return true;
    const value = record[key];
    if (typeof value === "string") {
      if (textMentions(value, secrets)) return true;
    } else if (value !== null && typeof value === "object" && jsonMentions(value, secrets)) {
      return true;
    }
  }
  return false;
}

function textMentions(text: string, secrets: readonly string[]): boolean {
  // The shortest secret is the last: a shorter text holds none (names such as `type`, `text`).
  if (text.length < secrets[secrets.length - 1].length) return false;
  for (const secret of secrets) {
    if (text.includes(secret)) return true;
  }
  return false;
}

/**
 * Whether a secret is in a string or name of a nested value, looked for in its JSON text (one
 * native pass, no walk): a secret in a string is in the JSON text as JSON writes it. A match that
 * is not in a string (a number's digits, an escape's tail) only costs a walk that changes nothing.
 */
function jsonMentions(value: object, secrets: readonly string[]): boolean {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return true; // Not JSON (a cycle): the walk decides, or refuses it.
  }
  for (const secret of secrets) {
    if (json.includes(NEEDS_ESCAPE.test(secret) ? JSON.stringify(secret).slice(1, -1) : secret)) {
      return true;
    }
  }
  return false;
}

// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001F\uD800-\uDFFF]/;

/** Every string and name of a value redacted (a value too deep to walk: a `RangeError`). */
function redactValue(value: unknown, secrets: readonly string[]): unknown {
  return mapJsonStrings(value, redacting(secrets));
}

function redacting(secrets: readonly string[]): JsonStringsOptions {
  // Refused as a value too deep for the stack is (see the callers' `RangeError`).
  return {
    map: (text) => redactText(text, secrets),
    max: MAX_REMOTE_DEPTH,
    tooDeep: () => {
      throw new RangeError("too deep");
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}
