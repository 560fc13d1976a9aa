/**
 * Attributes a bundle's code to its inputs through its source map, to measure how much of the
 * edge bundle is toolroute's own code.
 *
 * @module
 */

/** The parts of a source map (version 3) this module reads. */
export interface SourceMap {
  /** The inputs, as written by the bundler. */
  sources: string[];
  /** The inputs' source text, in the order of `sources`, when the bundler wrote it. */
  sourcesContent?: (string | null)[];
  /** Base64 VLQ segments: `;` between generated lines, `,` between segments. */
  mappings: string;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    shift += 5;
    if ((digit & 32) === 0) {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/**
 * The generated code of the inputs a predicate selects, concatenated in bundle order.
 *
 * Each mapped segment runs from its column to the next segment's (or the line's end); unmapped
 * segments belong to no input.
 *
 * @param code The bundle.
 * @param map Its source map.
 * @param select Whether an input counts, by its path and its index in `sources` (a bundle may
 *   hold two copies of one path, one from each package that inlined it).
 * @returns The code of the selected inputs.
 */
export function codeOfInputs(
  code: string,
  map: SourceMap,
  select: (source: string, index: number) => boolean,
): string {
  const lines = code.split("\n");
  const parts: string[] = [];
  let source = 0;
  map.mappings.split(";").forEach((line, index) => {
    const text = lines[index] ?? "";
    const segments: { column: number; source?: number }[] = [];
    let column = 0;
    for (const raw of line.split(",")) {
      if (raw === "") continue;
      const values = decodeSegment(raw);
      column += values[0];
      if (values.length > 1) source += values[1];
      segments.push({ column, source: values.length > 1 ? source : undefined });
    }
    segments.forEach((segment, i) => {
      if (segment.source === undefined) return;
      if (!select(map.sources[segment.source], segment.source)) return;
      parts.push(text.slice(segment.column, segments[i + 1]?.column ?? text.length));
    });
  });
  return parts.join("");
}
