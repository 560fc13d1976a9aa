import { decodeBase64, encodeBase64 } from "../base64.ts";
import type { RoutedTool } from "../tool_source.ts";
import { canonicalJson } from "../canonical_json.ts";

const encoder = new TextEncoder();
const toolHashes = new WeakMap<RoutedTool, Promise<string>>();

/**
 * What a signer signs: pending approvals, grants, and the state a 2026-07-28 `serve` call carries
 * from one round to the next (`requestState`, which the client holds between rounds).
 */
export type SignedKind = "approval" | "grant" | "round";

/**
 * Signs and checks pending approvals (and grants and round states) with HMAC-SHA-256 (WebCrypto),
 * over a canonical JSON encoding of every field but the signature.
 */
export class ApprovalSigner {
  #secret: Uint8Array<ArrayBuffer>;
  #key?: Promise<CryptoKey>;

  /**
   * Throws a `TypeError` when the secret is shorter than 16 bytes.
   *
   * @param secret The router's secret; random per signer by default.
   */
  constructor(secret?: string | Uint8Array) {
    if (secret === undefined) {
      this.#secret = crypto.getRandomValues(new Uint8Array(32));
      return;
    }
    const bytes = typeof secret === "string" ? encoder.encode(secret) : secret;
    if (!(bytes instanceof Uint8Array) || bytes.length < 16) {
      throw new TypeError(
        'Cannot create router: "approvalSecret" must be a string or bytes of at least 16 bytes',
      );
    }
    this.#secret = new Uint8Array(bytes);
  }

  /**
   * Signs a record (every field but its signature) under its kind's label: a record signed as one
   * kind never verifies as another (a grant is never an approval).
   *
   * @returns The signature, base64url.
   */
  async sign(kind: SignedKind, record: object): Promise<string> {
    const mac = await crypto.subtle.sign("HMAC", await this.#cryptoKey(), signed(kind, record));
    return encodeBase64(new Uint8Array(mac), { url: true });
  }

  /**
   * Checks a record's `signature` in constant time.
   *
   * @returns `true` when no field changed since it was signed; `false` for a record that cannot
   *   be encoded (a client's, nested past the stack: it was never signed, and must not throw).
   */
  async verify(kind: SignedKind, record: { signature?: unknown }): Promise<boolean> {
    const mac = fromBase64url(record.signature);
    if (mac === undefined) return false;
    const { signature: _, ...rest } = record;
    let data: Uint8Array<ArrayBuffer>;
    try {
      data = signed(kind, rest);
    } catch {
      return false;
    }
    return await crypto.subtle.verify("HMAC", await this.#cryptoKey(), mac, data);
  }

  #cryptoKey(): Promise<CryptoKey> {
    return this.#key ??= crypto.subtle.importKey(
      "raw",
      this.#secret,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }
}

/**
 * SHA-256 of what defines a tool for an approval: name, source, origin, description and input
 * schema. A tool that changes between the ask and the approval no longer matches.
 *
 * @returns The hash, base64url.
 */
export function toolHash(tool: RoutedTool): Promise<string> {
  let hash = toolHashes.get(tool);
  if (hash === undefined) {
    const definition = canonicalJson({
      name: tool.name,
      source: tool.source,
      origin: tool.origin,
      description: tool.description,
      inputSchema: tool.inputSchema,
    });
    hash = crypto.subtle.digest("SHA-256", encoder.encode(definition)).then((digest) =>
      encodeBase64(new Uint8Array(digest), { url: true })
    );
    toolHashes.set(tool, hash);
  }
  return hash;
}

function signed(kind: string, record: object): Uint8Array<ArrayBuffer> {
  return encoder.encode(`toolroute-${kind}-v1\n${canonicalJson(record)}`);
}

function fromBase64url(text: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  return decodeBase64(text, { url: true });
}
