/** The round constants and initial hash: fractional bits of cube and square roots of primes. */
const K = new Int32Array(64);
const INIT = new Int32Array(8);
for (let n = 2, found = 0; found < 64; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (!prime) continue;
  if (found < 8) INIT[found] = (Math.sqrt(n) % 1) * 2 ** 32;
  K[found++] = (Math.cbrt(n) % 1) * 2 ** 32;
}
const encoder = new TextEncoder();
const W = new Int32Array(64);
const H = new Int32Array(8);
let buffer = new Uint8Array(256);

/**
 * The hex SHA-256 of a text (UTF-8), synchronously: for digests that must be ready before a call
 * returns (audit records), where WebCrypto's digest is only asynchronous.
 *
 * @param text The text.
 * @returns 64 hex digits.
 */
export function sha256Hex(text: string): string {
  const most = text.length * 3 + 72;
  if (buffer.length < most) buffer = new Uint8Array(most * 2);
  const bytes = buffer;
  const size = encoder.encodeInto(text, bytes).written;
  const length = ((size + 9 + 63) >> 6) << 6;
  bytes.fill(0, size, length);
  bytes[size] = 0x80;
  const high = Math.floor(size / 0x20000000);
  const low = (size << 3) >>> 0;
  bytes[length - 8] = high >>> 24;
  bytes[length - 7] = high >>> 16;
  bytes[length - 6] = high >>> 8;
  bytes[length - 5] = high;
  bytes[length - 4] = low >>> 24;
  bytes[length - 3] = low >>> 16;
  bytes[length - 2] = low >>> 8;
  bytes[length - 1] = low;
  const h = H;
  const w = W;
  for (let i = 0; i < 8; i++) h[i] = INIT[i];
  for (let offset = 0; offset < length; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15], y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  }
  let hex = "";
  for (let i = 0; i < 8; i++) hex += (h[i] >>> 0).toString(16).padStart(8, "0");
  return hex;
}
