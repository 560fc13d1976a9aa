import { concat } from "@std/bytes";

/** One frame of the session protocol: a JSON object and a body of raw bytes. */
export interface SessionFrame {
  /** The JSON part (an object). */
  readonly header: Record<string, unknown>;
  /** The body. */
  readonly body: Uint8Array;
}

/** The largest JSON part the host accepts from a supervisor (1 MiB). */
export const MAX_FRAME_JSON = 1 << 20;
/** The largest body the host accepts from a supervisor (17 MiB: a 16 MiB file and room). */
export const MAX_FRAME_BODY = 17 << 20;

/**
 * Encodes a frame: the JSON part's and the body's lengths (big-endian unsigned 32-bit), the JSON
 * part, the body.
 *
 * @param header The JSON part.
 * @returns The bytes to write.
 */
export function encodeFrame(
  header: Record<string, unknown>,
  body: Uint8Array = EMPTY,
): Uint8Array {
  const json = JSON.stringify(header);
  // The JSON part is encoded in place (at most three bytes per UTF-16 unit): one allocation.
  const room = new Uint8Array(8 + json.length * 3 + body.length);
  const length = encoder.encodeInto(json, room.subarray(8)).written;
  const frame = room.subarray(0, 8 + length + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, length);
  view.setUint32(4, body.length);
  frame.set(body, 8 + length);
  return frame;
}

const EMPTY = new Uint8Array();
const encoder = new TextEncoder();

/**
 * Splits a supervisor's output into frames, refusing anything that is not one: a length over
 * the limits, JSON that does not parse or is not an object. The supervisor runs code the model
 * can influence, so every frame is checked before it is used.
 */
export class FrameReader {
  // Copies of the bytes of an incomplete frame (a chunk given to `push` may be reused after).
  #pending: Uint8Array[] = [];
  #total = 0;
  #need = 8;
  #decoder = new TextDecoder();

  /**
   * Adds received bytes and returns the frames they complete. Throws a `RangeError` or
   * `SyntaxError` for bytes that are not a valid frame (the session must end). Keeps no
   * reference to `chunk`: the caller may read into its memory again once this returns.
   *
   * @param chunk The bytes received.
   * @returns The complete frames, in order.
   */
  push(chunk: Uint8Array): SessionFrame[] {
    if (this.#total + chunk.length < this.#need) {
      this.#pending.push(chunk.slice());
      this.#total += chunk.length;
      return [];
    }
    // Most often a chunk holds whole frames and nothing waits: it is read as it is.
    let all = this.#pending.length === 0 ? chunk : concat([...this.#pending, chunk]);
    const frames: SessionFrame[] = [];
    this.#need = 8;
    while (all.length >= 8) {
      const jsonLength = uint32(all, 0);
      const bodyLength = uint32(all, 4);
      if (jsonLength > MAX_FRAME_JSON || bodyLength > MAX_FRAME_BODY) {
        throw new RangeError(`a frame of ${jsonLength} + ${bodyLength} bytes is over the limit`);
      }
      const end = 8 + jsonLength + bodyLength;
      if (all.length < end) {
        this.#need = end;
        break;
      }
      const header: unknown = JSON.parse(this.#decoder.decode(all.subarray(8, 8 + jsonLength)));
      if (header === null || typeof header !== "object" || Array.isArray(header)) {
        throw new SyntaxError("a frame's JSON part is not an object");
      }
      frames.push({
        header: header as Record<string, unknown>,
        body: all.slice(8 + jsonLength, end),
      });
      all = all.subarray(end);
    }
    this.#pending = all.length > 0 ? [all.slice()] : [];
    this.#total = all.length;
    return frames;
  }
}

/** The big-endian unsigned 32-bit number at `at`. */
function uint32(bytes: Uint8Array, at: number): number {
  return (bytes[at] * 0x1000000) + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
}
