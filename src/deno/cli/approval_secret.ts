/** The variable holding the secret that signs the approvals and grants of `serve --store`. */
export const APPROVAL_SECRET_VARIABLE = "TOOLROUTE_APPROVAL_SECRET";

/**
 * The secret from `TOOLROUTE_APPROVAL_SECRET`, or `undefined` when it is unset or empty.
 * Requires `allow-env` permission for that variable.
 *
 * @tags allow-env
 * @returns The secret.
 */
export function approvalSecret(): string | undefined {
  const secret = Deno.env.get(APPROVAL_SECRET_VARIABLE);
  return secret === undefined || secret === "" ? undefined : secret;
}
