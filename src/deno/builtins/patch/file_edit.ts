/** The result of editing one file's text. */
export interface EditResult {
  /** The new text. */
  text: string;
  /** Lines the edit added. */
  linesAdded: number;
  /** Lines the edit removed. */
  linesRemoved: number;
}

/**
 * One file operation of a patch, independent of the patch format.
 *
 * `edit` receives the current text and the path as the patch names it (for messages) and
 * returns the new text, or throws a `ToolError` naming the first line that did not match.
 */
export type FileEdit =
  | { readonly kind: "add"; readonly path: string; readonly text: string; readonly lines: number }
  | { readonly kind: "delete"; readonly path: string }
  | {
    readonly kind: "update";
    readonly path: string;
    readonly moveTo?: string;
    readonly edit: (text: string, path: string) => EditResult;
  };
