import { mapBlockStrings, mapJsonStrings } from "../json_strings.ts";
import type { ToolCallResult } from "../tool_call_types.ts";
import type { ToolContent } from "../tool_output.ts";
import type { ToolHook } from "./tool_hook.ts";

/** One credential format: a name for the marker and the pattern that finds it. */
export interface SecretPattern {
  /** The name in the marker, such as `aws-access-key` (`[redacted aws-access-key]`). */
  name: string;
  /** The pattern; it is used with the global flag. */
  pattern: RegExp;
}

/** Options of {@linkcode secretScannerHook}. */
export interface SecretScannerOptions {
  /** More formats, checked after the well-known ones. */
  patterns?: readonly SecretPattern[];
}

/**
 * Well-known credential formats: cloud keys and tokens with a known prefix (private key blocks
 * are found by a pass of their own). Each is specific enough that ordinary text does not match it.
 *
 * @example Which formats the scanner knows
 * ```ts
 * import { WELL_KNOWN_SECRETS } from "@toolroute/toolroute/hooks";
 * import { assert } from "@std/assert";
 *
 * const names = WELL_KNOWN_SECRETS.map((secret) => secret.name);
 * assert(names.includes("aws-access-key") && names.includes("jwt"));
 * ```
 */
export const WELL_KNOWN_SECRETS: readonly SecretPattern[] = Object.freeze([
  // Each token pattern starts only where a token starts (not after a token character), and every
  // repetition stops at a character the token cannot hold: the scan stays linear in the result's
  // length whatever a hostile server sends (`sk-sk-sk-…`, `eyJ-eyJ-…`, runs of blanks).
  {
    name: "aws-access-key",
    pattern:
      /(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![A-Za-z0-9])/g,
  },
  {
    name: "aws-secret-key",
    pattern:
      /(?<keep>aws_?secret_?access_?key["']?[ \t]{0,8}[:=][ \t]{0,8}["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
  },
  {
    name: "github-token",
    pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])/g,
  },
  { name: "github-token", pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/g },
  { name: "gitlab-token", pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g },
  { name: "slack-token", pattern: /(?<![A-Za-z0-9_-])xox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "anthropic-key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    name: "openai-key",
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  },
  { name: "stripe-key", pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{16,}/g },
  { name: "google-api-key", pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  { name: "npm-token", pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  {
    name: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
]);

/**
 * A hook that redacts well-known credential formats ({@linkcode WELL_KNOWN_SECRETS}: AWS, GitHub,
 * GitLab, Slack, OpenAI, Anthropic, Stripe, Google and npm keys and tokens, JWTs, private key
 * blocks) from every result, error results included: its text, its text and resource blocks and
 * the strings of its structured content, each replaced by `[redacted NAME]`. A result with
 * nothing to redact passes unchanged; a redacted one is reported in the call's event and audit
 * record (`hooks: [{ hook: "secret-scanner", action: "replace" }]`).
 *
 * @example Redact a key a tool printed
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { secretScannerHook } from "@toolroute/toolroute/hooks";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const env = defineTool({
 *   name: "env",
 *   description: "Shows the environment",
 *   input: z.object({}),
 *   run: () => "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
 * });
 * const router = new ToolRouter({ functions: [env], hooks: [secretScannerHook()] });
 * const tools = await router.expose({ functions: ["env"] });
 * assertEquals(await tools.invoke("env", {}), "AWS_ACCESS_KEY_ID=[redacted aws-access-key]");
 * ```
 *
 * @param options More formats to redact.
 * @returns The hook.
 */
export function secretScannerHook(options: SecretScannerOptions = {}): ToolHook {
  const patterns = [...WELL_KNOWN_SECRETS, ...(options.patterns ?? [])].map(({ name, pattern }) => {
    if (typeof name !== "string" || !(pattern instanceof RegExp)) {
      throw new TypeError(
        "Cannot make the secret scanner: each pattern is { name: string, pattern: RegExp }",
      );
    }
    const flags = pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`;
    const marker = `[redacted ${name.replaceAll("$", "$$$$")}]`;
    // A `keep` group is context the pattern needs (`aws_secret_access_key = `): it stays.
    return {
      marker: pattern.source.includes("(?<keep>") ? `$<keep>${marker}` : marker,
      pattern: new RegExp(pattern.source, flags),
    };
  });
  const redact = (text: string): string => {
    let out = privateKeysRedacted(text);
    for (const { marker, pattern } of patterns) out = out.replace(pattern, marker);
    return out;
  };
  // Every string at any depth, keys included, but a block's base64 bytes; deeper than the scan
  // goes (64 levels below the top), withheld as a whole rather than passed on unread.
  const scan = {
    map: redact,
    max: 65,
    tooDeep: () => "[redacted: nested too deep to scan]",
  };
  return Object.freeze<ToolHook>({
    name: "secret-scanner",
    after(_call, result: ToolCallResult) {
      const text = mapJsonStrings(result.text, scan) as string;
      const content = result.content.map((block) => mapBlockStrings(block, scan) as ToolContent);
      const structured = mapJsonStrings(result.structuredContent, scan) as
        | Record<string, unknown>
        | undefined;
      const changed = text !== result.text || structured !== result.structuredContent ||
        content.some((block, i) => block !== result.content[i]);
      if (!changed) return undefined;
      const out: ToolCallResult = { ...result, text, content };
      if (structured !== undefined) out.structuredContent = structured;
      return out;
    },
  });
}

const KEY_MARKERS = /-----(BEGIN|END) (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Private key blocks, from each BEGIN line to the next END line, as `[redacted private-key]`; a
 * BEGIN without an END redacts the rest of the text. One pass over the markers, so many BEGIN
 * lines without END cost no more than one.
 */
function privateKeysRedacted(text: string): string {
  if (!text.includes("PRIVATE KEY")) return text;
  let out = "";
  let kept = 0;
  let open = -1;
  for (const marker of text.matchAll(KEY_MARKERS)) {
    if (marker[1] === "BEGIN") {
      if (open < 0) open = marker.index;
      continue;
    }
    if (open < 0) continue;
    out += `${text.slice(kept, open)}[redacted private-key]`;
    kept = marker.index + marker[0].length;
    open = -1;
  }
  if (open >= 0) return `${out}${text.slice(kept, open)}[redacted private-key]`;
  return kept === 0 ? text : out + text.slice(kept);
}
