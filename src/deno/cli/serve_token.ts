import { UsageError } from "./usage_error.ts";

/** The variable `serve --http` takes its bearer token from when the config has no `users`. */
export const TOKEN_VARIABLE = "TOOLROUTE_TOKEN";

/** Shortest token accepted from {@linkcode TOKEN_VARIABLE}. */
export const MIN_TOKEN_LENGTH = 16;

/** The bearer token of a `serve --http` without `users`. */
export interface ServeToken {
  readonly token: string;
  /** Whether it was generated at start (then it is printed once), or came from the variable. */
  readonly generated: boolean;
}

/**
 * The bearer token of `serve --http` when the config has no `users`: `TOOLROUTE_TOKEN` when set
 * (at least 16 characters, no white space), or 32 random bytes (base64url) generated now.
 * Throws a `UsageError` for a weak or malformed variable.
 *
 * Requires `allow-env` permission for `TOOLROUTE_TOKEN`.
 *
 * @tags allow-env
 * @returns The token and whether it was generated.
 */
export function serveToken(): ServeToken {
  const fromEnv = Deno.env.get(TOKEN_VARIABLE);
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < MIN_TOKEN_LENGTH || /\s/.test(fromEnv)) {
      throw new UsageError(
        `${TOKEN_VARIABLE} must be at least ${MIN_TOKEN_LENGTH} characters without white space; unset it to have a token generated`,
      );
    }
    return { token: fromEnv, generated: false };
  }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  return { token, generated: true };
}

/**
 * Writes the token to a new file readable by its owner only (mode 0600). An existing file is
 * replaced: removed first, then created exclusively, so a symlink planted there is never followed.
 *
 * Requires `allow-write` permission for the file.
 *
 * @tags allow-write
 */
export async function writeTokenFile(path: string, token: string): Promise<void> {
  await Deno.remove(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.writeTextFile(path, `${token}\n`, { createNew: true, mode: 0o600 });
}

/**
 * The lines `serve` prints once to stderr for a generated token: the header and a client
 * configuration to paste.
 *
 * @param options Where the token was also written (`tokenFile`), if anywhere.
 */
export function tokenBanner(
  token: string,
  url: string,
  options: { tokenFile?: string } = {},
): string[] {
  const { tokenFile } = options;
  const snippet = JSON.stringify({
    mcpServers: { toolroute: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } },
  });
  return [
    `toolroute: every request needs this bearer token (generated now; set ${TOKEN_VARIABLE} to choose one${
      tokenFile === undefined ? "" : `; also written to ${tokenFile}`
    }):`,
    `  Authorization: Bearer ${token}`,
    `  client config: ${snippet}`,
  ];
}
