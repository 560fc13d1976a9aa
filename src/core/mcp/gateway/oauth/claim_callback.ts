import type { KeyValueStore } from "../../../store/key_value_store.ts";
import { normalise, type PendingAuthorization } from "./store_oauth_provider.ts";
import { sha256Hex } from "../../../sha256_hex.ts";

/**
 * Checks the redirect of an authorization and uses up its `state`: the URL is the redirect URI;
 * with `binding`, the browser brought the cookie the first hop set when it started this
 * authorization (checked before anything is used up, so a stranger's request changes nothing);
 * the `state` is known, unexpired, unused (claimed atomically with `setIfAbsent`) and was issued
 * for this user and server; no `error`; `iss` names the authorization server that was asked (RFC
 * 9207). Throws a `TypeError` for a redirect that does not fit, an `Error` for an `error` answer.
 *
 * @param settings The store of pending authorizations, the redirect URI, and how long a used
 *   `state` is remembered.
 * @param target The user (`""` for a global server), the server id, the redirect URL and the
 *   browser's binding cookie (`""` when it brought none) where the host requires one.
 * @returns The pending authorization and the code to exchange.
 */
export async function claimCallback(
  settings: { store: KeyValueStore; redirect: URL; stateTtlMs: number },
  target: { user: string; serverId: string; callbackUrl: string | URL; binding?: string },
): Promise<{ pending: PendingAuthorization; code: string; iss?: string }> {
  const { store, redirect } = settings;
  const { serverId } = target;
  const fail = (why: string) =>
    new TypeError(`Cannot complete authorization for MCP server "${serverId}": ${why}`);
  const url = URL.parse(target.callbackUrl);
  if (url === null) throw fail("the callback URL is not a URL");
  if (url.origin + url.pathname !== redirect.origin + redirect.pathname) {
    throw fail(`the callback URL is not the redirect URI "${redirect.href}"`);
  }
  const state = url.searchParams.get("state");
  if (!state) throw fail('the callback URL has no "state"; pass the whole URL');
  if (target.binding !== undefined) {
    const started = await store.get<PendingAuthorization>(["oauth", "pending", state]);
    if (started?.binding === undefined || started.binding !== await sha256Hex(target.binding)) {
      throw fail(
        "this browser did not start the authorization (its sign-in cookie is missing or different); nothing was linked. Open the sign-in link from your own MCP client in this browser",
      );
    }
  }
  const fresh = await store.setIfAbsent(["oauth", "used", state], true, {
    expireIn: settings.stateTtlMs,
  });
  if (!fresh) throw fail("this authorization was completed already; start a new one");
  const pending = await store.get<PendingAuthorization>(["oauth", "pending", state]);
  await store.delete(["oauth", "pending", state]);
  if (pending === undefined) throw fail("the authorization is unknown or expired; start again");
  if (pending.user !== target.user || pending.serverId !== serverId) {
    throw fail("the authorization was started for another user or server");
  }
  const error = url.searchParams.get("error");
  if (error !== null) {
    const description = url.searchParams.get("error_description")?.slice(0, 200);
    throw new Error(
      `Authorization for MCP server "${serverId}" was refused: "${error.slice(0, 100)}"${
        description ? ` (${description})` : ""
      }; ask the user to try again`,
    );
  }
  const iss = url.searchParams.get("iss");
  const issuerMismatch = iss !== null
    ? pending.issuer !== undefined && normalise(iss) !== normalise(pending.issuer)
    : pending.issRequired === true;
  if (issuerMismatch) {
    throw fail(`the callback's "iss" does not name the authorization server that was asked`);
  }
  const code = url.searchParams.get("code");
  if (!code) throw fail('the callback URL has no "code"');
  // `iss` goes on to the SDK, which checks it against the metadata again (RFC 9207).
  return { pending, code, ...(iss === null ? {} : { iss }) };
}
