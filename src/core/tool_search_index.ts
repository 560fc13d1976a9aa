import type { RoutedTool } from "./tool_source.ts";

// BM25 constants as the literature uses them; the fields repeat by weight (a cheap BM25F).
const K1 = 1.2;
const B = 0.75;
const WEIGHTS = { name: 3, server: 3, title: 2, description: 1, parameters: 1 };
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
  #lengths: Float64Array;
  #averageLength: number;

  /**
   * Indexes the tools.
   *
   * @param tools The tools a search may return; ties keep this order.
   */
  constructor(tools: readonly RoutedTool[]) {
    this.#tools = tools;
    this.#lengths = new Float64Array(tools.length);
    let total = 0;
    tools.forEach((tool, index) => {
      const counts = new Map<string, number>();
      for (const [field, text] of fieldsOf(tool)) {
        for (const term of terms(text)) {
          counts.set(term, (counts.get(term) ?? 0) + WEIGHTS[field]);
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
    const scores = new Float64Array(this.#tools.length);
    const touched: number[] = [];
    const count = this.#tools.length;
    for (const term of new Set(terms(query))) {
      const list = this.#postings.get(term);
      if (list === undefined) continue;
      const frequency = list.length / 2;
      const idf = Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const index = list[i];
        const tf = list[i + 1];
        const norm = K1 * (1 - B + B * this.#lengths[index] / this.#averageLength);
        if (scores[index] === 0) touched.push(index);
        scores[index] += idf * tf * (K1 + 1) / (tf + norm);
      }
    }
    touched.sort((a, b) => scores[b] - scores[a] || a - b);
    return touched.slice(0, limit).map((index) => this.#tools[index]);
  }
}

type Field = keyof typeof WEIGHTS;

function* fieldsOf(tool: RoutedTool): Generator<[Field, string]> {
  yield ["name", tool.name];
  const slash = tool.origin.indexOf("/");
  if (slash > 0) yield ["server", tool.origin.slice(0, slash)];
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
function terms(text: string): string[] {
  const out: string[] = [];
  const words = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^\p{L}\p{N}]+/u);
  for (const word of words) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

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
