import { ToolError } from "./tool_error.ts";
import { checkPositive } from "./check_positive.ts";
import type { ToolContent } from "./tool_output.ts";
import type { ToolCallResult } from "./tool_call_types.ts";
import { type RoutedTool, serverOf } from "./tool_source.ts";
import type { ResultStore, StoredResultInfo } from "./result_store.ts";
import { readResultPage, type ResultPage } from "./result_page.ts";

/**
 * How many tokens a tool result may put into the model's context. A result over its budget keeps
 * its head and tail in the text, and the whole of it is stored behind a handle the model reads
 * with the `read_result` tool (docs/context_economy.md).
 *
 * The budget of a call is the first given of: `tools[name]`, `sources[server or service id]`,
 * `sources[source kind]` (`"builtin"`, `"function"`, `"local_mcp"`, `"user_mcp"`,
 * `"global_mcp"`), `tokens`, and for a gateway's tools the gateway's `maxResultChars` / 4. None:
 * the result is not cut.
 */
export interface ResultBudget {
  /** Most tokens of any result. */
  tokens?: number;
  /** Most tokens per source kind or per MCP server or service id (`"github"`). */
  sources?: Readonly<Record<string, number>>;
  /** Most tokens per exposed tool name. */
  tools?: Readonly<Record<string, number>>;
  /** Counts the tokens of a text. Default: about four characters a token. */
  countTokens?: (text: string) => number;
  /**
   * Most bytes of cut results this router keeps stored at once; the oldest are dropped first, and
   * a result larger than this is cut without a handle. Default: 64 MiB.
   */
  maxStoredBytes?: number;
  /** How long a stored result can be read, in milliseconds. Default: one hour. */
  ttlMs?: number;
}

/** Who reads: a handle is readable only by the user and scope (tool set or session) that made it. */
export interface ResultOwner {
  /** The tool set's user. */
  userId?: string;
  /** The tool set's id, or the host's session. */
  scope: string;
}

interface Kept {
  bytes: number;
  store: ResultStore;
  owner: string;
  expiresAt: number;
}

const DEFAULT_MAX_STORED = 64 * 1024 * 1024;
const DEFAULT_TTL_MS = 60 * 60 * 1000;
/** Pages are at least this many bytes, whatever the budget, so a long result is not read in crumbs. */
const MIN_PAGE_BYTES = 4096;
const HANDLE = /^res_[br][0-9a-f]{32}$/;

/**
 * The budgets of one router and the results it keeps: cuts results over budget, stores them whole
 * and reads them back by page for their owner only. Memory is bounded by `maxStoredBytes`
 * (counted here, for the stores this router writes).
 */
export class ResultBudgets {
  #budget: ResultBudget;
  #count: (text: string) => number;
  #stores: { router: ResultStore; builtins?: ResultStore };
  #remoteTokens?: number;
  #maxStored: number;
  #ttlMs: number;
  /** The handles this router stored, oldest first, with their size and store. */
  #kept = new Map<string, Kept>();
  #keptBytes = 0;
  /** How many live handles each owner has, so a later set of the same session lists `read_result`. */
  #owners = new Map<string, number>();

  /**
   * Checks the budgets and takes the stores.
   *
   * @param budget The budgets; checked here (host misuse throws a `RangeError` or `TypeError`).
   * @param stores The router's store, the built-ins' own when they have one, and the budget of a
   *   gateway's results where `budget` gives none.
   */
  constructor(
    budget: ResultBudget,
    stores: { router: ResultStore; builtins?: ResultStore; remoteTokens?: number },
  ) {
    if (budget === null || typeof budget !== "object") {
      throw new TypeError('Cannot create router: "resultBudget" must be an object');
    }
    checkPositive(budget.tokens, "resultBudget.tokens");
    for (const [group, map] of [["sources", budget.sources], ["tools", budget.tools]] as const) {
      for (const [name, tokens] of Object.entries(map ?? {})) {
        checkPositive(tokens, `resultBudget.${group}.${name}`);
      }
    }
    if (budget.countTokens !== undefined && typeof budget.countTokens !== "function") {
      throw new TypeError('Cannot create router: "resultBudget.countTokens" must be a function');
    }
    checkPositive(budget.maxStoredBytes, "resultBudget.maxStoredBytes");
    checkPositive(budget.ttlMs, "resultBudget.ttlMs");
    this.#budget = budget;
    this.#count = budget.countTokens ?? estimateTokens;
    this.#stores = { router: stores.router, builtins: stores.builtins };
    this.#remoteTokens = stores.remoteTokens;
    this.#maxStored = budget.maxStoredBytes ?? DEFAULT_MAX_STORED;
    this.#ttlMs = budget.ttlMs ?? DEFAULT_TTL_MS;
  }

  /**
   * The budget of a tool's results, in tokens.
   *
   * @returns The tokens, or `undefined` for no budget.
   */
  budgetOf(tool: RoutedTool): number | undefined {
    const { tools, sources, tokens } = this.#budget;
    // The origin is split only when budgets by source are set (not on every call).
    const bySource = sources === undefined
      ? undefined
      : own(sources, serverOf(tool)) ?? own(sources, tool.source);
    return own(tools, tool.name) ?? bySource ?? tokens ??
      (tool.source === "global_mcp" || tool.source === "user_mcp" ? this.#remoteTokens : undefined);
  }

  /**
   * Whether an owner has stored results this router still counts (a set of the same session
   * then lists `read_result` from the start).
   */
  holds(owner: ResultOwner): boolean {
    this.#expire();
    return (this.#owners.get(ownerKey(owner)) ?? 0) > 0;
  }

  /**
   * Cuts a result over its tool's budget and stores it whole behind a handle.
   *
   * @returns The result, cut when over budget, with `resultHandle` when stored; a result within
   *   its budget (nearly every one) as it is, not in a promise: each call's result passes here.
   */
  apply(
    result: ToolCallResult,
    tool: RoutedTool,
    owner: ResultOwner,
  ): ToolCallResult | Promise<ToolCallResult> {
    const budget = this.budgetOf(tool);
    if (budget === undefined) return result;
    // What a result's blocks carry beside their text (a block's `_meta`, a link's description)
    // reaches the client too: a result whose bulk is there is measured, and kept, as that JSON,
    // so no such field takes a remote server past the budget. (`structuredContent` is not: a
    // structured copy of an image is as large as the image, and it is left out of a cut result.)
    const outside = outsideText(result);
    const text = outside !== undefined &&
        this.#count(outside) > Math.max(budget, this.#count(result.text))
      ? outside
      : result.text;
    if (this.#count(text) <= budget) return result;
    return this.#stored(result, { text, budget, tool, owner });
  }

  /** A result over its budget, cut, its whole text stored behind a handle when it fits. */
  async #stored(
    result: ToolCallResult,
    over: { text: string; budget: number; tool: RoutedTool; owner: ResultOwner },
  ): Promise<ToolCallResult> {
    const { text, budget, tool, owner } = over;
    const bytes = new TextEncoder().encode(text);
    const pageBytes = Math.max(MIN_PAGE_BYTES, budget * 4);
    const handle = await this.#store(bytes, tool, owner, pageBytes);
    const note = handle === undefined
      ? `The whole result is ${bytes.length} bytes, more than this router keeps (${this.#maxStored}), so the rest is gone.`
      : `The whole result is ${bytes.length} bytes and is kept: call read_result with {"handle":"${handle}"} (and "offset" in bytes) to read it in pages of up to ${pageBytes} bytes.`;
    const cut = this.#cut(text, budget, note);
    const content: ToolContent[] = [{ type: "text", text: cut }];
    // Media stays as it is (bounded by maxMediaBytes); text blocks are in the cut text.
    for (const block of result.content) {
      if (block.type === "image" || block.type === "audio") content.push(block);
      else if (block.type === "resource" && typeof block.resource?.text !== "string") {
        content.push(block);
      }
    }
    const { structuredContent: _, ...rest } = result;
    return {
      ...rest,
      text: cut,
      content,
      ...(handle === undefined ? {} : { resultHandle: handle }),
    };
  }

  /**
   * Reads one page of a stored result for its owner.
   *
   * @param handle The handle the cut result named.
   * @param owner Who asks.
   * @param range `offset` (default 0) and `limit` (default and most: the page size) in bytes.
   * @returns The page; throws a `ToolError` (`unknown_tool` for a handle that is not the asker's,
   *   gone or never made; `invalid_arguments` for an offset inside a character or past the end).
   */
  async read(
    handle: string,
    owner: ResultOwner,
    range: { offset?: number; limit?: number },
  ): Promise<ResultPage> {
    const store = HANDLE.test(handle)
      ? handle[4] === "b" ? this.#stores.builtins ?? this.#stores.router : this.#stores.router
      : undefined;
    const info = await store?.info(handle);
    // Someone else's handle, an expired one and a made-up one read the same: nothing.
    if (store === undefined || info === undefined || !owns(info, owner)) {
      throw new ToolError(
        "unknown_tool",
        `No stored result has the handle ${
          JSON.stringify(String(handle).slice(0, 80))
        } in this conversation: pass a handle a cut result of this conversation named (results are kept for a limited time)`,
      );
    }
    return readResultPage(store, { handle, info, range });
  }

  async #store(
    bytes: Uint8Array,
    tool: RoutedTool,
    owner: ResultOwner,
    pageBytes: number,
  ): Promise<string | undefined> {
    if (bytes.length > this.#maxStored) return undefined;
    this.#expire();
    // Drop the oldest until the new one fits under the cap.
    for (const [old, entry] of this.#kept) {
      if (this.#keptBytes + bytes.length <= this.#maxStored) break;
      await this.#drop(old, entry);
    }
    const info: StoredResultInfo = {
      userId: owner.userId ?? null,
      scope: owner.scope,
      tool: tool.name,
      bytes: bytes.length,
      pageBytes,
    };
    const random = crypto.randomUUID().replaceAll("-", "");
    // A built-in's result in the built-ins' own store; when that cannot be written, the router's.
    const stores: [string, ResultStore | undefined][] = [
      [`res_b${random}`, tool.source === "builtin" ? this.#stores.builtins : undefined],
      [`res_r${random}`, this.#stores.router],
    ];
    for (const [handle, store] of stores) {
      if (store === undefined) continue;
      try {
        await store.put(handle, bytes, info, { expireIn: this.#ttlMs });
      } catch {
        await store.delete(handle).catch(() => {});
        continue;
      }
      const key = ownerKey(owner);
      this.#kept.set(handle, {
        bytes: bytes.length,
        store,
        owner: key,
        expiresAt: Date.now() + this.#ttlMs,
      });
      this.#keptBytes += bytes.length;
      this.#owners.set(key, (this.#owners.get(key) ?? 0) + 1);
      return handle;
    }
    return undefined;
  }

  /** Forgets expired handles (their stores drop them by themselves). */
  #expire(): void {
    const now = Date.now();
    for (const [handle, entry] of this.#kept) {
      if (entry.expiresAt > now) break;
      this.#drop(handle, entry).catch(() => {});
    }
  }

  async #drop(
    handle: string,
    entry: Kept,
  ): Promise<void> {
    this.#kept.delete(handle);
    this.#keptBytes -= entry.bytes;
    const left = (this.#owners.get(entry.owner) ?? 1) - 1;
    if (left > 0) this.#owners.set(entry.owner, left);
    else this.#owners.delete(entry.owner);
    await entry.store.delete(handle);
  }

  /** Head and tail of `text` with the note between them, within `budget` tokens when it can be. */
  #cut(text: string, budget: number, note: string): string {
    const marker = (cut: number) => `\n[... ${cut} characters cut. ${note} ...]\n`;
    const ratio = text.length / Math.max(1, this.#count(text));
    let keep = Math.max(0, Math.floor(budget * ratio) - marker(text.length).length);
    for (let tries = 0;; tries++) {
      const head = sliceEnd(text, Math.ceil(keep / 2));
      const tail = sliceStart(text, text.length - (keep - head.length));
      const cut = head + marker(text.length - head.length - tail.length) + tail;
      if (keep === 0 || tries >= 8 || this.#count(cut) <= budget) return cut;
      keep = Math.floor(keep * 0.8);
    }
  }
}

/** The default token count: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * A result's blocks' fields beside their text, as JSON (the texts and the media payloads left
 * out: those are the text's and `maxMediaBytes`' to bound), or `undefined` for plain text blocks.
 */
function outsideText(result: ToolCallResult): string | undefined {
  const plain = result.content.every((block) =>
    block.type === "text" && Object.keys(block).length === 2
  );
  if (plain) return undefined;
  const content = result.content.map((block) => {
    const { text: _text, data: _data, ...kept } = block as Record<string, unknown>;
    if (block.type !== "resource" || block.resource === undefined) return kept;
    const { text: _t, blob: _b, ...resource } = block.resource as Record<string, unknown>;
    return { ...kept, resource };
  });
  return JSON.stringify({ content });
}

function own(
  map: Readonly<Record<string, number>> | undefined,
  key: string | undefined,
): number | undefined {
  return map !== undefined && key !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

function owns(info: StoredResultInfo, owner: ResultOwner): boolean {
  return info.userId === (owner.userId ?? null) && info.scope === owner.scope;
}

function ownerKey(owner: ResultOwner): string {
  return JSON.stringify([owner.userId ?? null, owner.scope]);
}

/** The first `length` characters, one fewer when that would split a surrogate pair. */
function sliceEnd(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** The characters from `start`, one more when `start` is inside a surrogate pair. */
function sliceStart(text: string, start: number): string {
  if (start >= text.length) return "";
  const code = text.charCodeAt(start);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start);
}
