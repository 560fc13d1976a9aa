/**
 * Compiles a glob into an anchored regular expression whose matching is linear in the text.
 *
 * In text mode `*` is any run of characters. In path mode `*` stays within one folder, `**`
 * crosses folders, a trailing slash-`**` also matches the folder itself, and a `**` segment
 * followed by a slash also matches no folder at all. `?` is one character (not `/` in path
 * mode). Everything else is literal.
 *
 * The text matched is a model's argument: as a backtracking expression, `*rm*-rf*` took seconds
 * over a long one. The expression returned keeps its `source` (for messages), but its `exec` (and
 * so `test`, `match`) steps through the text once with the set of places the glob may be at, and
 * never backtracks.
 *
 * @param mode `"text"` or `"path"`.
 */
export function globToRegExp(pattern: string, mode: "text" | "path"): RegExp {
  let source = "";
  const places = new GlobPlaces();
  const single = mode === "path" ? NOT_SLASH : ANY;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (mode === "path" && pattern.startsWith("/**", i) && i + 3 === pattern.length) {
      source += "(?:/.*)?";
      places.add(NONE, 0, NONE, [1, 3]); // optional: on to "/", or past the group
      places.add(LITERAL, 0x2f, NONE);
      places.add(NONE, 0, DOT, [1]);
      break;
    }
    if (mode === "path" && pattern.startsWith("**", i)) {
      if (pattern[i + 2] === "/" && (i === 0 || pattern[i - 1] === "/")) {
        source += "(?:.*/)?";
        places.add(NONE, 0, NONE, [1, 3]);
        places.add(NONE, 0, DOT, [1]);
        places.add(LITERAL, 0x2f, NONE);
        i += 2;
      } else {
        source += ".*";
        places.add(NONE, 0, DOT, [1]);
        i += 1;
      }
    } else if (char === "*") {
      source += mode === "path" ? "[^/]*" : "[\\s\\S]*";
      places.add(NONE, 0, single, [1]);
    } else if (char === "?") {
      source += mode === "path" ? "[^/]" : "[\\s\\S]";
      places.add(single, 0, NONE);
    } else {
      source += char.replace(/[.+^${}()|[\]\\\/-]/g, "\\$&");
      places.add(LITERAL, char.charCodeAt(0), NONE);
    }
  }
  // `*` and literal characters only (most rules): matched by its parts, natively.
  const parts = mode === "text" && !pattern.includes("?") ? pattern.split("*") : undefined;
  return new GlobRegExp(`^${source}$`, places, parts);
}

/**
 * Whether a text matches `*`-separated parts: it starts with the first, ends with the last, and
 * holds the others in order between, each found at its leftmost place (what a `*`-only glob
 * needs: a later place only leaves less room for the rest).
 */
function matchesParts(text: string, parts: readonly string[]): boolean {
  if (parts.length === 1) return text === parts[0];
  const first = parts[0];
  const last = parts[parts.length - 1];
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = text.indexOf(parts[i], at);
    if (found < 0 || found + parts[i].length > end) return false;
    at = found + parts[i].length;
  }
  return true;
}

// What a place takes: nothing, one code unit, any, any but "/", any but a line terminator.
const NONE = 0;
const LITERAL = 1;
const ANY = 2;
const NOT_SLASH = 3;
const DOT = 4;

function takes(kind: number, literal: number, code: number): boolean {
  switch (kind) {
    case LITERAL:
      return code === literal;
    case ANY:
      return true;
    case NOT_SLASH:
      return code !== 0x2f;
    case DOT:
      return code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;
    default:
      return false;
  }
}

/**
 * The places of a glob, in order: at each, a code unit it takes to go on to the next place
 * (`step`), code units it takes while staying (`stay`), and places further on it reaches
 * without one (`skips`).
 */
class GlobPlaces {
  readonly step: number[] = [];
  readonly literal: number[] = [];
  readonly stay: number[] = [];
  readonly skips: number[][] = [];

  add(step: number, literal: number, stay: number, skips: number[] = []): void {
    const at = this.step.length;
    this.step.push(step);
    this.literal.push(literal);
    this.stay.push(stay);
    this.skips.push(skips.map((offset) => at + offset));
  }
}

/** A glob's expression whose `exec` runs the glob's places over the text (no backtracking). */
class GlobRegExp extends RegExp {
  readonly #places: GlobPlaces;
  readonly #parts: readonly string[] | undefined;

  constructor(source: string, places: GlobPlaces, parts: readonly string[] | undefined) {
    super(source);
    this.#places = places;
    this.#parts = parts;
  }

  override exec(text: string): RegExpExecArray | null {
    const input = String(text);
    if (!this.#matches(input)) return null;
    // Anchored at both ends: the match is the whole text, and the source captures nothing.
    const found = [input] as unknown as RegExpExecArray;
    found.index = 0;
    found.input = input;
    return found;
  }

  override test(text: string): boolean {
    return this.#matches(String(text));
  }

  /** Steps through the text with the set of places the glob may be at. */
  #matches(text: string): boolean {
    if (this.#parts !== undefined) return matchesParts(text, this.#parts);
    const { step, literal, stay, skips } = this.#places;
    const end = step.length;
    // Adds the places reached without a code unit (always further on: one pass suffices).
    const close = (at: Uint8Array) => {
      for (let place = 0; place < end; place++) {
        if (at[place] === 1) { for (const skip of skips[place]) at[skip] = 1; }
      }
    };
    let at = new Uint8Array(end + 1);
    let next = new Uint8Array(end + 1);
    at[0] = 1;
    close(at);
    // By UTF-16 code unit, as the expression (no `u` flag) reads it.
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      next.fill(0);
      let any = false;
      for (let place = 0; place < end; place++) {
        if (at[place] === 0) continue;
        if (takes(stay[place], 0, code)) {
          next[place] = 1;
          any = true;
        }
        if (takes(step[place], literal[place], code)) {
          next[place + 1] = 1;
          any = true;
        }
      }
      if (!any) return false;
      close(next);
      [at, next] = [next, at];
    }
    return at[end] === 1;
  }
}
