/**
 * A request's body read whole as text (UTF-8, as the SDK's transports decode it), or `undefined`
 * when it is over `max` bytes: by its `Content-Length`, refused unread, or as it arrives (a
 * chunked body has no length, and a length beside a `Transfer-Encoding` declares nothing), where
 * the read stops at the bound. The handler reads the body this once and hands the parsed message
 * on, so the era check and the SDK's transports read no copy of it.
 */
export async function boundedBody(request: Request, max: number): Promise<string | undefined> {
  if (request.body === null) return "";
  if (Number(request.headers.get("content-length") ?? Number.NaN) > max) {
    await request.body.cancel().catch(() => {});
    return undefined;
  }
  // Read by hand, not piped through std's `LimitedBytesTransformStream`: a pipe per request cost
  // serve's throughput against the raw SDK handler far more than these lines (docs/benchmarks.md).
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    // The stream is closed: nothing to release (a release makes an error object per request).
    if (done) return text + decoder.decode();
    received += value.byteLength;
    if (received > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
