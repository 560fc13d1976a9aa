import type { BuiltinContext, SourceKind } from "./tool_source.ts";

/** What a policy decides for a tool call: run it, ask a person first, or refuse it. */
export type PolicyAction = "allow" | "ask" | "deny";

/**
 * Rules over exposure and calls, checked deny first, then ask, then allow, then `default`.
 *
 * A rule is `NAME` or `NAME(SPECIFIER)`:
 *
 * - `NAME` is a glob over exposed names (`*` any run of characters, `?` one character):
 *   `bash`, `delete_*`, `*`. `source:KIND` matches every tool of one source (`source:builtin`,
 *   `source:user_mcp`, `source:local_mcp`, `source:function`, `source:global_mcp`);
 *   `server:ID` every tool of one remote MCP server or local MCP service, and `server:ID/TOOL`
 *   one of its tools by its own name (both globs).
 * - `SPECIFIER` matches the arguments: for `bash` a glob over the command (`bash(git status*)`,
 *   or Claude Code's `bash(git commit:*)`), checked against every part of a compound command;
 *   for `read_file`, `write_file` and `apply_patch` a path glob resolved against the workspace
 *   (`write_file(src/**)`, `read_file(.env)`; `*` stays within a folder, `**` crosses folders),
 *   checked against every path a patch touches; for any tool `KEY=GLOB` over one argument
 *   (`send_email(to=*@example.com)`), and for other tools a bare glob over any top-level string
 *   argument.
 *
 * A deny or ask rule matches when any command part or path matches; an allow rule only when
 * all do, and never a command with `$(…)` or backticks. A tool that a deny rule without a
 * specifier matches (or that `default: "deny"` leaves without any allow or ask rule) is not
 * exposed at all. Specifiers read the call's text and paths as given: they are a guard rail for
 * honest mistakes, not a sandbox (a symlink or `bash -c` can reach around them); the workspace
 * confinement of the built-ins is what holds against a hostile model.
 */
export interface Policy {
  /** Rules that let a call run. */
  allow?: string[];
  /** Rules that make a call wait for approval. */
  ask?: string[];
  /** Rules that refuse a call (and hide the tool when the rule has no specifier). */
  deny?: string[];
  /** What applies when no rule matches. Default: `"allow"`. */
  default?: PolicyAction;
  /**
   * Rules whose asks are never remembered: a call one of them matches (like a deny rule would)
   * asks every time, and an answer with `scope: "session"` or `"always"` approves that call
   * only, creating no grant.
   */
  neverSticky?: string[];
  /**
   * Most calls per time window (or per run) of the tools a rule matches; a call over a limit
   * runs nothing and returns `rate_limited` with `retryAfterMs`. Counted in the router's `store`.
   */
  limits?: PolicyLimit[];
}

/**
 * At most `max` calls matching `match` in each window of `windowMs` milliseconds (windows
 * aligned to the epoch, so routers sharing a store count the same window), or per run when
 * `windowMs` is absent (the call option `runId`; one tool set is one run by default).
 */
export interface PolicyLimit {
  /** A rule, as in `deny`: `send_email`, `server:billing`, `bash(git push*)`. */
  match: string;
  /** Most calls admitted per window or run: a whole number of at least 1. */
  max: number;
  /** The window in milliseconds; absent: the window is the run. */
  windowMs?: number;
  /** Whose calls share a count: each user's apart (`"user"`, the default) or everyone's. */
  per?: "user" | "router";
}

/** The selection a pending approval records, so a later router can rebuild the tool set. */
export interface ApprovalSelection {
  /** Function tool names. */
  functions?: string[];
  /** Local MCP service names. */
  mcpServices?: string[];
  /** Remote MCP server ids. */
  mcpServers?: string[];
  /** Built-in tool names. */
  builtins?: string[];
  /** The request's built-in context. */
  context?: BuiltinContext;
  /** The request's policy. */
  policy?: Policy;
  /** Whether the request's tool set was deferred (its names follow the deferred naming). */
  defer?: true;
}

/**
 * A call that waits for a person's decision: plain JSON, safe to store and to send to a UI.
 *
 * It is signed (HMAC-SHA-256 with the router's secret) over the tool's definition and the exact
 * arguments; a changed, expired or already used approval runs nothing.
 */
export interface PendingApproval {
  /** A random id, used once. */
  id: string;
  /** The tool's exposed name. */
  tool: string;
  /** The exact arguments the call runs with when approved. */
  arguments: Record<string, unknown>;
  /** The request's user. */
  userId?: string;
  /** The rule that asked (`"default"` when the policy's default did). */
  rule: string;
  /** The tool's source. */
  source: SourceKind;
  /**
   * The start of {@linkcode PendingApproval.shown} (1,000 characters), saying plainly how much
   * more there is (`… (2,431 more characters not shown)`): show `shown` to anyone who asks.
   */
  summary: string;
  /**
   * The full arguments as a person must see them before approving: every argument, nothing cut,
   * control, bidi and zero-width characters shown as escapes (`\u202E`), newlines and tabs as
   * `\n` and `\t`, runs of blanks as their count (`\[400 × space]`).
   */
  shown: string;
  /**
   * `sha256-…` of the tool, `shown` and the exact arguments: the approval is bound to it, and an
   * answer that names another digest (`ApprovalAnswer.shownDigest`) runs nothing.
   */
  shownDigest: string;
  /** When the call was asked for (ISO 8601). */
  requestedAt: string;
  /** When the approval stops being valid (ISO 8601). */
  expiresAt: string;
  /** What `router.resume` needs to rebuild the request's tool set. */
  selection: ApprovalSelection;
  /** SHA-256 of the tool's definition (name, source, origin, description, input schema). */
  toolHash: string;
  /** HMAC-SHA-256 over every other field, base64url. */
  signature: string;
}

/** What an `approve` handler is asked. */
export interface ApprovalRequest {
  /** The approval's id. */
  id: string;
  /** The tool's exposed name. */
  tool: string;
  /** The call's arguments. */
  arguments: Record<string, unknown>;
  /** The request's user. */
  userId?: string;
  /** The rule that asked. */
  rule: string;
  /** The tool's source. */
  source: SourceKind;
  /** The tool's description. */
  description: string;
  /** The start of `shown`, saying how much more there is (see `PendingApproval.summary`). */
  summary: string;
  /** The full arguments made visible (see `PendingApproval.shown`): what a person approves. */
  shown: string;
  /** The digest the approval is bound to (see `PendingApproval.shownDigest`). */
  shownDigest: string;
  /** Aborts when the call is aborted or its deadline passes. */
  signal: AbortSignal;
}

/**
 * How long an approval lasts: `once` (this call), `session` (a grant that ends after the router's
 * `grantTtlMs`) or `always` (a grant that ends when revoked).
 */
export type ApprovalScope = "once" | "session" | "always";

/** A person's answer to an approval request. */
export interface ApprovalAnswer {
  /** Whether the call may run. */
  approved: boolean;
  /**
   * With `approved: true`: `session` or `always` also grants the later calls of this tool, for
   * this user, that the same rule asks about and whose arguments its specifier covers (a
   * {@linkcode Grant}). Default: `once`.
   */
  scope?: ApprovalScope;
  /**
   * With `approved: true`: the arguments the person edited, which replace the call's. They are
   * validated against the tool's schema and checked by the policy again; an edit that fails
   * runs nothing (`invalid_arguments` or `permission_denied`).
   */
  arguments?: Record<string, unknown>;
  /** Why, in the person's words (shown to the model on a rejection). */
  reason?: string;
  /**
   * The `shownDigest` of what the person approved, when the approver keeps it: an approval
   * whose digest is not the call's runs nothing (`permission_denied`).
   */
  shownDigest?: string;
}

/**
 * A lasting approval: later calls of one tool, for one user, that one rule asks about run
 * without asking, as long as the rule's specifier covers their arguments the way an allow rule
 * would (`write_file(src/**)` granted never covers `.env`). Plain JSON, signed like approvals
 * and kept in the router's `store` under the key prefix `["grants"]`.
 */
export interface Grant {
  /** A random id (`router.revokeGrant(id)`). */
  id: string;
  /** The user it is for; absent for requests that name no user (they share it). */
  userId?: string;
  /** The tool's exposed name. */
  tool: string;
  /** The tool's source. */
  source: SourceKind;
  /** SHA-256 of the tool's definition: a changed tool is not covered. */
  toolHash: string;
  /** The rule that asked, as written (`"default"` for the policy's default). */
  rule: string;
  /** Whose policy the rule is in. */
  ruleScope: "router" | "request";
  /** `session` (ends at `expiresAt`) or `always` (ends when revoked). */
  scope: "session" | "always";
  /** The approval whose answer created it. */
  approvalId: string;
  /** When it was granted (ISO 8601). */
  createdAt: string;
  /** When a `session` grant ends (ISO 8601). */
  expiresAt?: string;
  /** The person's reason, when they gave one. */
  reason?: string;
  /** HMAC-SHA-256 over every other field, base64url. */
  signature: string;
}

/** Decides an approval request: `true`, `false`, or an answer with a reason. */
export type ApprovalHandler = (
  request: ApprovalRequest,
) => boolean | ApprovalAnswer | Promise<boolean | ApprovalAnswer>;

/** What happened to an ask, as call events report it. */
export type ApprovalOutcome = "approved" | "rejected" | "pending" | "invalid";
