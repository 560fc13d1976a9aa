import { concat, indexOfNeedle } from "@std/bytes";

const CRLF = new TextEncoder().encode("\r\n");

// The largest request body passed on (the handler buffers it whole); a longer one is answered
// 413 (Content-Length) or cut with an error (chunked).
export const MAX_BODY = 16 * 1024 * 1024;

// Ends a body that grows past MAX_BODY with an error.
export function capped(next: () => Promise<Uint8Array | null>): () => Promise<Uint8Array | null> {
  let total = 0;
  return async () => {
    const bytes = await next();
    total += bytes?.length ?? 0;
    if (total > MAX_BODY) throw new Error(`the body is over ${MAX_BODY} bytes`);
    return bytes;
  };
}

// Reads a `Content-Length` body: `first` (read with the head), then the rest up to `total`.
export function lengthReader(
  first: Uint8Array,
  body: { total: number; read: () => Promise<Uint8Array | null> },
): () => Promise<Uint8Array | null> {
  const { total, read } = body;
  let left = total;
  let pending: Uint8Array | undefined = first.length > 0 ? first : undefined;
  return async () => {
    if (left === 0) return null;
    const bytes = pending ?? await read();
    pending = undefined;
    if (bytes === null) throw new Error("the body ended early");
    const take = bytes.subarray(0, Math.min(left, bytes.length));
    left -= take.length;
    return take;
  };
}

// Decodes a chunked body (sizes in hex, extensions ignored, trailers read and dropped), handing
// on each part of a chunk as it arrives: a chunk sent a byte per packet costs linear time.
export function chunkedReader(
  first: Uint8Array,
  read: () => Promise<Uint8Array | null>,
): () => Promise<Uint8Array | null> {
  let buffered = first;
  let left = 0; // bytes of the current chunk still to come
  let crlf = false; // the CRLF after a chunk is due
  let done = false;
  const more = async () => {
    const bytes = await read();
    if (bytes === null) throw new Error("the body ended early");
    return bytes;
  };
  const line = async (): Promise<string> => {
    for (;;) {
      const end = indexOfNeedle(buffered, CRLF);
      if (end !== -1) {
        const text = new TextDecoder("latin1").decode(buffered.subarray(0, end));
        buffered = buffered.subarray(end + 2);
        return text;
      }
      if (buffered.length > 4096) throw new Error("a chunk line is too long");
      buffered = concat([buffered, await more()]);
    }
  };
  return async () => {
    for (;;) {
      if (done) return null;
      if (left > 0) {
        if (buffered.length === 0) buffered = await more();
        const take = buffered.slice(0, Math.min(left, buffered.length));
        buffered = buffered.subarray(take.length);
        left -= take.length;
        crlf = left === 0;
        return take;
      }
      if (crlf) {
        if ((await line()) !== "") throw new Error("a malformed chunk");
        crlf = false;
        continue;
      }
      const size = /^([0-9a-fA-F]{1,12})(;.*)?$/.exec(await line());
      if (size === null) throw new Error("a malformed chunk size");
      left = parseInt(size[1], 16);
      if (left === 0) {
        while ((await line()) !== "") { /* trailers: dropped */ }
        done = true;
      }
    }
  };
}
