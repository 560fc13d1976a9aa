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
 * Well-known credential formats: cloud keys, tokens with a known prefix, private key blocks.
 * Each is specific enough that ordinary text does not match it.
 *
 * @example Which formats the scanner knows
 * ```ts
 * import { WELL_KNOWN_SECRETS } from "@toolroute/toolroute";
 * import { assert } from "@std/assert";
 *
 * const names = WELL_KNOWN_SECRETS.map((secret) => secret.name);
 * assert(names.includes("aws-access-key") && names.includes("private-key"));
 * ```
 */
export const WELL_KNOWN_SECRETS: readonly SecretPattern[] = Object.freeze([
  {
    name: "private-key",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
  },
  {
    name: "aws-access-key",
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g,
  },
  {
    name: "aws-secret-key",
    pattern:
      /(?<=\baws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
  },
  { name: "github-token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  { name: "github-token", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { name: "gitlab-token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { name: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: "stripe-key", pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b/g },
  { name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  {
    name: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
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
 * import { defineTool, secretScannerHook, ToolRouter } from "@toolroute/toolroute";
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
    return { marker: `[redacted ${name}]`, pattern: new RegExp(pattern.source, flags) };
  });
  const redact = (text: string): string => {
    let out = text;
    for (const { marker, pattern } of patterns) out = out.replace(pattern, marker);
    return out;
  };
  return Object.freeze<ToolHook>({
    name: "secret-scanner",
    after(_call, result: ToolCallResult) {
      let changed = false;
      const clean = (text: string) => {
        const out = redact(text);
        if (out !== text) changed = true;
        return out;
      };
      const text = clean(result.text);
      const content = result.content.map((block) => cleanBlock(block, clean));
      const structured = result.structuredContent === undefined
        ? undefined
        : cleanValue(result.structuredContent, clean, 0, () => changed = true) as Record<
          string,
          unknown
        >;
      if (!changed) return undefined;
      const out: ToolCallResult = { ...result, text, content };
      if (structured !== undefined) out.structuredContent = structured;
      return out;
    },
  });
}

function cleanBlock(block: ToolContent, clean: (text: string) => string): ToolContent {
  if (block.type === "text") return { ...block, text: clean(block.text) };
  if (block.type === "resource") {
    const resource = block.resource as Record<string, unknown>;
    if (typeof resource.text === "string") {
      return { ...block, resource: { ...resource, text: clean(resource.text) } } as ToolContent;
    }
  }
  return block;
}

function cleanValue(
  value: unknown,
  clean: (text: string) => string,
  depth: number,
  mark: () => void,
): unknown {
  if (typeof value === "string") return clean(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 64) {
    // Deeper than the scan goes: withheld as a whole rather than passed on unread.
    mark();
    return "[redacted: nested too deep to scan]";
  }
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, clean, depth + 1, mark));
  return Object.fromEntries(
    Object.entries(value).map((
      [key, item],
    ) => [clean(key), cleanValue(item, clean, depth + 1, mark)]),
  );
}
