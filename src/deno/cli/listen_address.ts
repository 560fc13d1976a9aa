import { UsageError } from "./usage_error.ts";

/** Where `serve --http` listens. */
export interface ListenAddress {
  /** The host name or address, `127.0.0.1` by default. */
  hostname: string;
  /** The port; `0` picks a free one. */
  port: number;
  /** Whether the address is loopback only. */
  loopback: boolean;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Parses `HOST:PORT`, `:PORT` or `PORT` (host `127.0.0.1`). Throws a {@linkcode UsageError} for
 * anything else.
 *
 * @param text The `--http` value.
 */
export function listenAddress(text: string): ListenAddress {
  const match = text.match(/^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) {
    throw new UsageError(`Invalid --http address "${text}"; use HOST:PORT such as 127.0.0.1:8787`);
  }
  const hostname = (match[1] || "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
  return { hostname, port, loopback: LOOPBACK.has(hostname) || /^127\./.test(hostname) };
}

/**
 * The `--allow-net` value listening needs: `host:port`, or the host alone for port 0 (a free
 * port is not known in advance).
 */
export function listenPermission(address: ListenAddress): string {
  return address.port === 0 ? address.hostname : `${address.hostname}:${address.port}`;
}
