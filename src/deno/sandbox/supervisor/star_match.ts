/**
 * Whether a name matches a glob of `*` and literal characters, given as its parts between the
 * stars (`"a*b*c".split("*")`): it starts with the first part, ends with the last, and holds the
 * others in order between, each found at its leftmost place (a later place only leaves less room
 * for the rest). Linear in the name for each part: no backtracking.
 *
 * Self-contained (no outside names): the sandbox session's supervisor runs its source text too.
 *
 * @param parts The glob's parts between its stars (one part: no star).
 * @returns `true` on a match.
 */
export function starMatch(parts: readonly string[], name: string): boolean {
  if (parts.length === 1) return name === parts[0];
  const first = parts[0];
  const last = parts[parts.length - 1];
  const end = name.length - last.length;
  if (end < first.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i], at);
    if (found < 0 || found + parts[i].length > end) return false;
    at = found + parts[i].length;
  }
  return true;
}
