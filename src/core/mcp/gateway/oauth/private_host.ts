/**
 * Whether a URL's host is a loopback, private, link-local or otherwise non-public address, read
 * from the WHATWG URL parser's canonical host: it has already turned every IPv4 spelling (octal
 * `0177.0.0.1`, hex `0x7f.1`, decimal `2130706433`, short `127.1`) into dotted decimal and every
 * IPv6 one into lowercase hex groups, so the check looks at the address's numbers, never at how
 * it was written. A trailing dot (`localhost.`) names the same host and is ignored; IPv6 forms
 * that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that address.
 *
 * @returns `true` for a host that must not be reached without an allowlist.
 */
export function isPrivateHost(url: URL): boolean {
  const host = canonicalHost(url);
  if (host === "" || host === "localhost" || host.endsWith(".localhost")) return true;
  if (host.startsWith("[")) return privateV6(groupsOf(host.slice(1, -1)));
  const v4 = ipv4(host);
  return v4 !== undefined && privateV4(v4);
}

/**
 * Whether a URL's host is a loopback address or name (`http:` is allowed to it).
 *
 * @returns `true` for loopback.
 */
export function isLoopbackHost(url: URL): boolean {
  const host = canonicalHost(url);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host.startsWith("[")) {
    const groups = groupsOf(host.slice(1, -1));
    if (groups === undefined) return false;
    if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true;
    const embedded = embeddedV4(groups);
    return embedded !== undefined && embedded[0] === 127;
  }
  return ipv4(host)?.[0] === 127;
}

/** The canonical host as comparable text (no trailing dot, lowercase). */
export function canonicalHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.+$/, "");
}

/** Dotted decimal as the URL parser writes it; `undefined` for a name. */
function ipv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  return parts.map(Number);
}

function privateV4([a, b, c]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || a >= 224 || // this network, private, loopback, multicast and reserved
    (a === 100 && b >= 64 && b <= 127) || // shared address space (carrier-grade NAT)
    (a === 169 && b === 254) || // link-local, where cloud metadata services answer
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, documentation
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113);
}

function privateV6(groups: number[] | undefined): boolean {
  // What the parser let through but cannot be read is not trusted to be public.
  if (groups === undefined) return true;
  const embedded = embeddedV4(groups);
  if (embedded !== undefined) return privateV4(embedded);
  if (groups.every((g) => g === 0)) return true; // ::
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  const first = groups[0];
  return (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0 || // link-local, site-local
    (first & 0xff00) === 0xff00 || // multicast
    (first === 0x2001 && groups[1] === 0x0db8) || // documentation
    (first === 0x0100 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0); // discard
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedV4(groups: number[]): number[] | undefined {
  const v4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; `::` and `::1` are not addresses of it).
  if (zeros(0, 5) && (groups[5] === 0xffff || (groups[5] === 0 && groups[6] !== 0))) {
    return v4(groups[6], groups[7]);
  }
  // ::ffff:0:a.b.c.d (SIIT), 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64).
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b) return v4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]); // 6to4
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it. */
function groupsOf(text: string): number[] | undefined {
  let body = text;
  // The parser writes hex groups only, but a dotted tail is read too, for safety.
  const dotted = body.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const parts = dotted[2].split(".").map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    body = `${dotted[1]}${((parts[0] << 8) | parts[1]).toString(16)}:${
      ((parts[2] << 8) | parts[3]).toString(16)
    }`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const read = (part: string) => part === "" ? [] : part.split(":");
  const head = read(halves[0]);
  const tail = halves.length === 2 ? read(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return undefined;
  const all = [...head, ...Array(fill).fill("0"), ...tail];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}
