import { type RoutedTool, serverOf } from "./tool_source.ts";

// BM25 constants as the literature uses them; the fields repeat by weight (a cheap BM25F).
const K1 = 1.2;
const B = 0.75;
const WEIGHTS = { name: 3, server: 3, title: 2, description: 1, parameters: 1 };
// A word that only shares a stem of four or more letters ("tar" / "tarball") counts half.
const PREFIX_WEIGHT = 0.5;
const MIN_PREFIX = 4;
const STOP_WORDS = new Set(
  ("a an and are as at be by can do for from how i in into is it its me my of on or our please " +
    "should that the their them then there this to us using we what when which will with you your")
    .split(" "),
);

/**
 * A BM25 index over the tools of one tool set: names, titles, descriptions, parameter names and
 * the server or service a tool comes from. It holds only the tools it was built from, so a search
 * can return nothing else.
 */
export class ToolSearchIndex {
  #tools: readonly RoutedTool[];
  /** term -> [tool index, term frequency, tool index, term frequency, ...] */
  #postings = new Map<string, number[]>();
  /** server term -> the tools of that server or service */
  #servers = new Map<string, Set<number>>();
  #vocabulary?: string[];
  #lengths: Float64Array;
  #averageLength: number;
  /** Reused by every search (searches are synchronous), cleared after each. */
  #scores: Float64Array;

  /**
   * Indexes the tools.
   *
   * @param tools The tools a search may return; ties keep this order.
   */
  constructor(tools: readonly RoutedTool[]) {
    this.#tools = tools;
    this.#lengths = new Float64Array(tools.length);
    this.#scores = new Float64Array(tools.length);
    let total = 0;
    tools.forEach((tool, index) => {
      const counts = new Map<string, number>();
      for (const [field, text] of fieldsOf(tool)) {
        for (const term of terms(text)) {
          counts.set(term, (counts.get(term) ?? 0) + WEIGHTS[field]);
          if (field !== "server") continue;
          let members = this.#servers.get(term);
          if (members === undefined) this.#servers.set(term, members = new Set());
          members.add(index);
        }
      }
      let length = 0;
      for (const [term, count] of counts) {
        length += count;
        let list = this.#postings.get(term);
        if (list === undefined) this.#postings.set(term, list = []);
        list.push(index, count);
      }
      this.#lengths[index] = length;
      total += length;
    });
    this.#averageLength = tools.length === 0 ? 1 : total / tools.length || 1;
  }

  /**
   * The tools that best match a query, best first.
   *
   * @param query Words describing the task.
   * @param limit Most tools returned.
   * @returns Matching tools (at least one query term in common), at most `limit`.
   */
  search(query: string, limit: number): RoutedTool[] {
    const scores = this.#scores;
    const touched: number[] = [];
    const count = this.#tools.length;
    const named = new Set<number>();
    for (const queried of new Set(terms(query, false))) {
      for (const member of this.#servers.get(queried) ?? []) named.add(member);
      for (const [term, weight] of this.#expand(queried)) {
        const list = this.#postings.get(term)!;
        const frequency = list.length / 2;
        const idf = weight * Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
        for (let i = 0; i < list.length; i += 2) {
          const index = list[i];
          const tf = list[i + 1];
          const norm = K1 * (1 - B + B * this.#lengths[index] / this.#averageLength);
          if (scores[index] === 0) touched.push(index);
          scores[index] += idf * tf * (K1 + 1) / (tf + norm);
        }
      }
    }
    // A request that names a server or service ("in Linear") wants that one's tools: they rank
    // above tools that only share other words with it.
    // The best `limit`, kept sorted by insertion (ties: catalog order): cheaper than sorting
    // every match.
    const best: number[] = [];
    const values: number[] = [];
    for (const index of touched) {
      const value = (named.has(index) ? 1e9 : 0) + scores[index];
      scores[index] = 0;
      let at = best.length;
      while (
        at > 0 && (value > values[at - 1] || (value === values[at - 1] && index < best[at - 1]))
      ) {
        at--;
      }
      if (at >= limit) continue;
      best.splice(at, 0, index);
      values.splice(at, 0, value);
      if (best.length > limit) {
        best.pop();
        values.pop();
      }
    }
    return best.map((index) => this.#tools[index]);
  }

  /** The indexed terms a query term reaches: itself, and terms it shares a long prefix with. */
  #expand(queried: string): [string, number][] {
    const out: [string, number][] = [];
    if (this.#postings.has(queried)) out.push([queried, 1]);
    if (queried.length < MIN_PREFIX) return out;
    for (let end = MIN_PREFIX; end < queried.length; end++) {
      const shorter = queried.slice(0, end);
      if (this.#postings.has(shorter)) out.push([shorter, PREFIX_WEIGHT]);
    }
    const vocabulary = this.#vocabulary ??= [...this.#postings.keys()].sort();
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (vocabulary[middle] < queried) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < vocabulary.length && vocabulary[i].startsWith(queried); i++) {
      if (vocabulary[i] !== queried) out.push([vocabulary[i], PREFIX_WEIGHT]);
    }
    return out;
  }
}

type Field = keyof typeof WEIGHTS;

function* fieldsOf(tool: RoutedTool): Generator<[Field, string]> {
  yield ["name", tool.name];
  const server = serverOf(tool);
  if (server) yield ["server", server];
  const title = (tool as { title?: unknown }).title ?? tool.annotations?.title;
  if (typeof title === "string") yield ["title", title];
  yield ["description", tool.description];
  const properties = tool.inputSchema.properties;
  if (properties !== null && typeof properties === "object") {
    yield ["parameters", Object.keys(properties).join(" ")];
  }
}

/**
 * The search terms of a text: words split at punctuation, `_`, `-` and camelCase, lower-cased,
 * stop words dropped, common English suffixes stripped so "creates", "created" and "create" meet.
 */
function terms(text: string, cache = true): readonly string[] {
  // Every request builds its tool set's index anew from mostly the same tool texts: remember
  // them. Never a model's query (a model could fill the cache), never a long text.
  cache &&= text.length <= TERM_CACHE_TEXT;
  const known = cache ? termCache.get(text) : undefined;
  if (known !== undefined) return known;
  if (cache && cachedChars + text.length > TERM_CACHE_CHARS) {
    termCache.clear();
    cachedChars = 0;
  }
  const out: string[] = [];
  const words = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^\p{L}\p{N}]+/u);
  for (const word of words) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  if (cache) {
    termCache.set(text, out);
    cachedChars += text.length;
  }
  return out;
}

// Bounds of the cache whatever texts the tools bring: a few megabytes.
const TERM_CACHE_CHARS = 2_000_000;
const TERM_CACHE_TEXT = 2_000;
let cachedChars = 0;
const termCache = new Map<string, string[]>();

function stem(word: string): string {
  if (word.length <= 3) return word;
  let out = word;
  if (out.endsWith("ies") && out.length > 4) out = out.slice(0, -3) + "y";
  else if (/(ss|sh|ch|x)es$/.test(out)) out = out.slice(0, -2);
  else if (out.endsWith("s") && !out.endsWith("ss")) out = out.slice(0, -1);
  if (out.length > 5 && out.endsWith("ing")) out = out.slice(0, -3);
  else if (out.length > 4 && out.endsWith("ed")) out = out.slice(0, -2);
  if (out.length > 3 && out.endsWith("e")) out = out.slice(0, -1);
  return out;
}
