/** What one hook decided about a call, as its event and audit record report it. */
export interface HookRecord {
  /** The hook's name (`hook 1` when it has none). */
  hook: string;
  /**
   * `args` (rewrote the arguments), `result` (answered without running), `deny`, `replace`
   * (replaced the result), `fail` (threw, timed out or answered nonsense: the call failed closed).
   */
  action: "args" | "result" | "deny" | "replace" | "fail";
  /** Why, in the hook's words (a deny's reason, a failure's message). */
  reason?: string;
}
