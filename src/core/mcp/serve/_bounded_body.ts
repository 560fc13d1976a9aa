import { LimitedBytesTransformStream } from "@std/streams/limited-bytes-transform-stream";

/**
 * The request with its body read whole, or `undefined` when the body is over `max` bytes (by its
 * `Content-Length`, or as it arrives: a chunked body has none): the handler reads a POST's body
 * several times (batch check, era, session), so one bounded read up front bounds them all.
 */
export async function boundedRequest(request: Request, max: number): Promise<Request | undefined> {
  if (request.body === null) return request;
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await request.body.cancel().catch(() => {});
    return undefined;
  }
  // A body of declared length is no longer (the runtime's HTTP framing reads no more of it):
  // handed on as it came, whose reads cost a busy server less than a copy. Not beside a
  // `Transfer-Encoding`, which then makes the length declare nothing.
  if (Number.isSafeInteger(declared) && !request.headers.has("transfer-encoding")) return request;
  try {
    const limited: ReadableStream<Uint8Array> = request.body.pipeThrough(
      new LimitedBytesTransformStream(max, { error: true }),
    );
    const body = await new Response(limited).arrayBuffer();
    return new Request(request, { body });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
