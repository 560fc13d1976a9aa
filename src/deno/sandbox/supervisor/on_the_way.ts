/**
 * Whether a walk kept to the folder `only` (relative to the root; "" for no bound) enters `dir`:
 * a folder on the way to it, it, or one below it. The host's walk and the supervisor's listing
 * both ask this, so that the sandbox lists exactly the folders the host will enter.
 *
 * Self-contained (no outside names): the sandbox session's supervisor runs its source text too.
 *
 * @param only The folder the walk keeps to, or "".
 * @param dir A folder relative to the root.
 * @returns `true` when the walk enters it.
 */
export function onTheWay(only: string, dir: string): boolean {
  return only === "" || dir === only || only.startsWith(`${dir}/`) || dir.startsWith(`${only}/`);
}
